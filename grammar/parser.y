/*
 * parser.y - the grammar of .kern files: Python's, whole, so that anything
 * Python accepts parses and gets a precise "not supported" from the later
 * passes instead of a syntax error.  Builds the Node AST of kernc.h, every
 * node with its source range.
 *
 * Tokens come from src/layout.c (layout_lex), the filter that turns the raw
 * scanner's line structure (grammar/lexer.l) into NEWLINE/INDENT/DEDENT.
 * The grammar follows CPython's LL(1) Grammar/Grammar, level by level,
 * except the binary operators from | to *, one level with precedence
 * declarations; %expect 0 holds and no rule needs %prec.
 *
 * Errors: yyreport_syntax_error turns bison's (LAC-exact) expected-token
 * sets into CPython-like messages; recovery is at statement level
 * (`error NEWLINE`), so every syntax error of a file is reported in one run.
 * Everything is allocated in the arena, so no %destructor is needed.
 */

%code requires {
#include "kernc.h"
#include <setjmp.h>
typedef struct ParseState ParseState;
/* grammar/parser_fast.c compiles this grammar a second time without LAC
 * (parse_fast): its parser function gets a name of its own. */
#ifdef KERNC_PARSE_FAST
#define kp_parse kp_parse_fast
#endif
}

%code provides {
/* The state of one parse, shared by the scanner (lexer.l), the layout
 * filter (layout.c) and the grammar actions. */
enum { LAYOUT_MAX_INDENT = 100, LAYOUT_MAX_BRACKETS = 200 };

/* The deepest tree the parser hands on: the later passes recurse.
 * Measured on an 8 MB stack under AddressSanitizer (which takes the most
 * stack), every kind of chain still translated at 8,000 levels; the first
 * overflow came near 16,000 (unary chains in the emitter), without ASan near
 * 64,000.  1000 leaves a factor of eight, and is far past any kernel.
 * CPython also stops ("too many nested parentheses", RecursionError in its
 * compiler); tests/limits.sh checks both sides of the limit. */
enum { PARSE_MAX_DEPTH = 1000 };

typedef struct Token {
    int kind;              /* a token number; 0 if none */
    KP_STYPE val;
    Loc loc;
} Token;

struct ParseState {
    const Source *src;
    void *scanner;         /* yyscan_t of lexer.l */
    jmp_buf *on_fatal;     /* where the scanner's fatal errors land */
    Node *module;

    /* lexer.l: position of the next character; the string being read */
    int line, col;
    Loc str_loc;
    StrBuf str;
    char str_quote;
    bool str_raw, str_bytes;

    /* layout.c */
    const char **lines;    /* start of each line, lines[1] is line 1 */
    int nlines;
    int indents[LAYOUT_MAX_INDENT];     /* columns, tabs to multiples of 8 */
    int alt_indents[LAYOUT_MAX_INDENT]; /* columns, tabs counting 1 */
    int nindents;
    int pending;           /* > 0: INDENTs owed; < 0: DEDENTs owed */
    int mismatch_col;      /* a bad unindent's column, taken as level */
    int mismatch_level;    /* ... mismatch_level - 1 (0: none) */
    bool at_bol;           /* the next token starts a logical line */
    bool at_eof;
    int nbrackets;
    char bracket_char[LAYOUT_MAX_BRACKETS];
    Loc bracket_loc[LAYOUT_MAX_BRACKETS];
    bool have_saved;
    Token saved;           /* the token that waits behind INDENT/DEDENTs */
    Token last, prev;      /* the last two tokens given to the parser */
    Token head, prev_head; /* first tokens of this and the previous line */
    int first_line;        /* of the text parsed (parse_fast's halves); 0: 1 */

    /* parser.y */
    bool recovered;        /* the last statement was an error recovery */
    bool eof_reported;     /* layout explained the end of file already */
    bool stop;             /* a limit was passed: the rest reads as the end */
    int bad_char_line;     /* a character was dropped on this line */
    Loc syntax_error_loc;  /* of the last "invalid syntax" report */
};

/* lexer.l */
bool lex_open(ParseState *ps);
void lex_close(ParseState *ps);
int lex_raw(KP_STYPE *lval, Loc *lloc, ParseState *ps);

/* parser_fast.c: the module of a file parsed without LAC, its depth
 * checked and fn(n, ctx) called on its nodes (as parse_source_visit's);
 * NULL when the parse reported anything (diagnostics muted), for
 * parse_source to parse it again with LAC's exact messages, or when it is
 * too deep (*deep: the node to report) */
Node *parse_fast(Source *src, NodeVisitFn *fn, void *ctx, void *ctx2, const Node **deep);

/* layout.c */
void layout_prepare(Source *src);
void layout_init(ParseState *ps);
int layout_lex(KP_STYPE *lval, Loc *lloc, ParseState *ps);
int layout_line_indent(ParseState *ps, int line);
void layout_unclosed(ParseState *ps);
}

%code {
#include <stdlib.h>
#include <string.h>

/* bison's default, with each pair of a Loc's ints moved as one 8-byte
 * word (speed, issue 7: a reduction's location was a fifth of the parser's
 * own instructions) */
#define YYLLOC_DEFAULT(Cur, Rhs, N)                                          \
    do {                                                                     \
        if (N) {                                                             \
            memcpy(&(Cur).first_line, &YYRHSLOC(Rhs, 1).first_line, 2 * sizeof(int)); \
            memcpy(&(Cur).last_line, &YYRHSLOC(Rhs, N).last_line, 2 * sizeof(int)); \
        } else {                                                             \
            (Cur).first_line = (Cur).last_line = YYRHSLOC(Rhs, 0).last_line; \
            (Cur).first_column = (Cur).last_column = YYRHSLOC(Rhs, 0).last_column; \
        }                                                                    \
    } while (0)

/* bison's own stack: right-nested input (`not not ... x`, `a ** a ** ...`)
 * fills it with one to four entries per level, so when it is full ("memory
 * exhausted") the nesting is past PARSE_MAX_DEPTH, and is reported so */
#define YYMAXDEPTH (10 * PARSE_MAX_DEPTH)

static int kp_lex(KP_STYPE *lval, Loc *lloc, ParseState *ps)
{
    return layout_lex(lval, lloc, ps);
}

static Loc span(Loc a, Loc b)
{
    return (Loc){a.first_line, a.first_column, b.last_line, b.last_column};
}

static Node *mk(NodeKind k, Loc loc)
{
    return node_new(k, loc);
}

/* "a" "b" "c": the pieces were collected in the first one's args (one
 * concatenation at the end: linear in the text, where pairwise joining was
 * quadratic on 100,000 adjacent literals). */
static Node *join_strings(Node *n)
{
    if (n->args.len == 0)
        return n;
    /* ival: each piece's length (str: a bytes piece may hold NULs) */
    size_t len = (size_t)n->ival;
    for (int i = 0; i < n->args.len; i++)
        len += (size_t)((Node *)n->args.items[i])->ival;
    char *t = arena_alloc(len + 1), *p = t;
    size_t k = (size_t)n->ival;
    memcpy(p, n->text, k);
    p += k;
    for (int i = 0; i < n->args.len; i++) {
        const Node *s = n->args.items[i];
        k = (size_t)s->ival;
        memcpy(p, s->text, k);
        p += k;
    }
    *p = '\0';
    n->text = t;
    n->ival = len;
    n->args = (NodeList){0};
    return n;
}

static Node *mk_binop(NodeKind k, Op op, Node *l, Node *r, Loc loc)
{
    Node *n = mk(k, loc);
    n->op = op;
    n->lhs = l;
    n->rhs = r;
    return n;
}

static Node *mk_unary(Op op, Node *e, Loc loc)
{
    Node *n = mk(E_UNARY, loc);
    n->op = op;
    n->lhs = e;
    return n;
}

static NodeList list1(Node *n)
{
    NodeList l = {0};
    if (n)
        nl_push(&l, n);
    return l;
}

static void list_append(NodeList *dst, const NodeList *src)
{
    for (int i = 0; i < src->len; i++)
        nl_push(dst, src->items[i]);
}

/* `a, b` (or `a,`) as one expression; a lone item without a comma is
 * itself, as in Python. */
static Node *tuple_or_item(NodeList items, bool trailing_comma, Loc loc)
{
    if (items.len == 1 && !trailing_comma)
        return items.items[0];
    Node *t = mk(E_TUPLE, loc);
    t->args = items;
    return t;
}

/* The operators grow with the operands (ops has args.cap entries), so a
 * long chain costs linear time, not a copy per operator. */
static void compare_push(Node *c, Op op, Node *operand)
{
    int nops = c->args.len - 1, cap = c->args.cap;
    nl_push(&c->args, operand);
    if (!c->ops || c->args.cap != cap) {
        Op *ops = arena_alloc(sizeof *ops * (size_t)c->args.cap);
        if (nops)
            memcpy(ops, c->ops, sizeof *ops * (size_t)nops);
        c->ops = ops;
    }
    c->ops[nops] = op;
}

/* What Python says when a target cannot be assigned to.  A starred
 * target (`*a, b = t`) is Python but not numba (UNPACK_EX is not
 * supported), so it gets one error here, and the later passes, which would
 * misread the unpacking, never see it. */
static void check_target_in(const Node *t, const char *verb, bool in_tuple)
{
    switch (t->kind) {
    case E_NAME:
    case E_ATTR:
    case E_SUBSCRIPT:
        return;
    case E_TUPLE:
    case E_LIST: {
        const Node *star = NULL;
        for (int i = 0; i < t->args.len; i++) {
            const Node *e = t->args.items[i];
            if (e->kind == E_STARRED) {
                if (star) {
                    error_at(e->loc, "multiple starred expressions in assignment");
                    return;
                }
                star = e;
            }
        }
        if (star && strcmp(verb, "assign to") == 0) {
            error_at(star->loc, "starred assignment ('*%s') is not supported",
                     star->lhs->kind == E_NAME ? star->lhs->name : "...");
            return;
        }
        for (int i = 0; i < t->args.len; i++)
            check_target_in(t->args.items[i], verb, true);
        return;
    }
    case E_STARRED:
        if (!in_tuple) {
            error_at(t->loc, strcmp(verb, "assign to") == 0
                                 ? "starred assignment target must be in a list or tuple"
                                 : "cannot %s starred", verb);
            return;
        }
        check_target_in(t->lhs, verb, false);
        return;
    case E_INT: case E_FLOAT: case E_STR: case E_BOOL: case E_NONE:
        error_at(t->loc, "cannot %s literal", verb);
        return;
    case E_CALL:
        error_at(t->loc, "cannot %s function call", verb);
        return;
    default:
        error_at(t->loc, "cannot %s %s", verb, node_kind_desc[t->kind]);
        return;
    }
}

static void check_target(const Node *t, const char *verb)
{
    check_target_in(t, verb, false);
}

static void check_aug_target(const Node *t)
{
    if (t->kind == E_NAME || t->kind == E_ATTR || t->kind == E_SUBSCRIPT)
        return;
    error_at(t->loc, "'%s' is an illegal expression for augmented assignment",
             node_kind_desc[t->kind]);
}

static Node *mk_call(Node *callee, Node *args, Loc loc)
{
    Node *n = args ? args : mk(E_CALL, loc);
    n->kind = E_CALL;
    n->loc = loc;
    n->lhs = callee;
    return n;
}

/* Adds one argument to the call being built, in Python's order rules. */
static void call_add(Node *call, Node *arg)
{
    if (!arg)
        return;
    if (arg->kind == N_KWARG) {
        for (int i = 0; i < call->kwargs.len; i++)
            if (strcmp(call->kwargs.items[i]->name, arg->name) == 0) {
                error_at(arg->loc, "keyword argument repeated: %s", arg->name);
                return;
            }
        nl_push(&call->kwargs, arg);
        return;
    }
    if (call->kwargs.len)
        error_at(arg->loc, "positional argument follows keyword argument");
    nl_push(&call->args, arg);
}

static void param_add(NodeList *params, Node *p)
{
    if (!p)
        return;
    for (int i = 0; i < params->len; i++)
        if (strcmp(params->items[i]->name, p->name) == 0) {
            error_at(p->loc, "duplicate argument '%s' in function definition", p->name);
            return;
        }
    if (!p->rhs && params->len && params->items[params->len - 1]->rhs)
        error_at(p->loc, "non-default argument follows default argument");
    nl_push(params, p);
}

static Node *mk_param(const char *name, Node *ann, Node *dflt, Loc loc)
{
    Node *p = mk(N_PARAM, loc);
    p->name = name;
    p->lhs = ann;
    p->rhs = dflt;
    return p;
}

static Node *mk_alias(const char *name, const char *as, Loc loc)
{
    Node *a = mk(N_ALIAS, loc);
    a->name = name;
    a->text = as;
    return a;
}

static void refuse_comprehension(Loc loc)
{
    error_at(loc, "comprehensions and generator expressions are not supported");
}

/* Only bison's own failures come here ("memory exhausted"); syntax
 * errors go through yyreport_syntax_error. */
static void kp_error(Loc *loc, ParseState *ps, const char *msg)
{
    (void)ps;
    if (strcmp(msg, "memory exhausted") == 0)
        error_at(*loc, "expression too complex: more than %d levels of nesting",
                 PARSE_MAX_DEPTH);
    else
        error_at(*loc, "%s", msg);
}
}

%define api.pure full
%define api.prefix {kp_}
%define api.token.prefix {T_}
%define api.location.type {Loc}
%define parse.error custom
%define parse.lac full
%locations
%expect 0
%parse-param {ParseState *ps}
%lex-param {ParseState *ps}

%union {
    Node *node;
    const char *str;
    Op op;
    NodeList list;
    bool flag;
}

%token YYEOF 0 "end of file"
%token <str> NAME "name"
%token <node> INT "integer literal" FLOAT "float literal" STRING "string literal"
%token NEWLINE "end of line" INDENT "indent" DEDENT "unindent"
%token <op> AUGASSIGN "augmented assignment"
%token POW "'**'" FLOORDIV "'//'" LSHIFT "'<<'" RSHIFT "'>>'"
%token LE "'<='" GE "'>='" EQ "'=='" NE "'!='" ARROW "'->'" WALRUS "':='"
%token ELLIPSIS "'...'"
%token KW_FALSE "'False'" KW_NONE "'None'" KW_TRUE "'True'" KW_AND "'and'"
%token KW_AS "'as'" KW_ASSERT "'assert'" KW_ASYNC "'async'" KW_AWAIT "'await'"
%token KW_BREAK "'break'" KW_CLASS "'class'" KW_CONTINUE "'continue'"
%token KW_DEF "'def'" KW_DEL "'del'" KW_ELIF "'elif'" KW_ELSE "'else'"
%token KW_EXCEPT "'except'" KW_FINALLY "'finally'" KW_FOR "'for'"
%token KW_FROM "'from'" KW_GLOBAL "'global'" KW_IF "'if'" KW_IMPORT "'import'"
%token KW_IN "'in'" KW_IS "'is'" KW_LAMBDA "'lambda'" KW_NONLOCAL "'nonlocal'"
%token KW_NOT "'not'" KW_OR "'or'" KW_PASS "'pass'" KW_RAISE "'raise'"
%token KW_RETURN "'return'" KW_TRY "'try'" KW_WHILE "'while'" KW_WITH "'with'"
%token KW_YIELD "'yield'"
/* The character tokens in the order the rules first use them (so their
 * numbers, and the order of expected tokens in messages, do not depend on
 * the precedence lines), then the binary operators of `expr`, loosest
 * first, all left-associative as in Python. */
%token ';' ',' ':' '=' '.' '*' '(' ')' '@' '/' '<' '>' '|' '^' '&' '+' '-' '%' '~'
%token '[' ']' '{' '}'
%left '|'
%left '^'
%left '&'
%left LSHIFT RSHIFT
%left '+' '-'
%left '*' '/' FLOORDIV '%' '@'

%type <list> stmts stmt simple_line small_stmts suite elif_tail else_opt
%type <list> assign_chain exprs texprs params params_opt lparams decorators
%type <list> dotted_as_names import_as_names import_names name_list
%type <list> subscript_items dict_items with_items except_clauses
%type <node> small_stmt expr_stmt compound if_stmt while_stmt for_stmt
%type <node> funcdef classdef decorated decorator try_stmt with_stmt with_item
%type <node> import_stmt dotted_as_name import_as_name
%type <node> testlist_star test_or_star targetlist expr_or_star
%type <node> test namedexpr or_test and_test not_test comparison comp_chain
%type <node> expr factor power atom_expr
%type <node> atom strings subscript subscriptlist opt_test lambdef
%type <node> arglist argument param lparam
%type <op> comp_op
%type <str> dotted_name from_module dots

%%

file:
    stmts                       { ps->module = mk(N_MODULE, (Loc){1, 1, 1, 1});
                                  ps->module->body = $1; }
  ;

/* An indented block where none may start is reported once, and its
 * statements are still parsed (and checked) as if they were not indented.
 * After an error recovery the block is the body of the broken statement,
 * so it is taken silently. */
stmts:
    %empty                      { $$ = (NodeList){0}; }
  | stmts stmt                  { $$ = $1; list_append(&$$, &$2); }
  | stmts INDENT
                       <flag>{ $$ = ps->recovered;
                               if (!ps->recovered) error_at(@2, "unexpected indent"); }
    stmts DEDENT                { $$ = $1; list_append(&$$, &$4); ps->recovered = $3; }
  ;

stmt:
    simple_line                 { $$ = $1; ps->recovered = false; }
  | compound                    { $$ = list1($1); ps->recovered = false; }
  | error NEWLINE               { $$ = (NodeList){0}; ps->recovered = true; yyerrok; }
  ;

simple_line:
    small_stmts NEWLINE         { $$ = $1; }
  | small_stmts ';' NEWLINE     { $$ = $1; }
  ;

small_stmts:
    small_stmt                  { $$ = list1($1); }
  | small_stmts ';' small_stmt  { $$ = $1; nl_push(&$$, $3); }
  ;

small_stmt:
    expr_stmt
  | KW_PASS                     { $$ = mk(S_PASS, @$); }
  | KW_BREAK                    { $$ = mk(S_BREAK, @$); }
  | KW_CONTINUE                 { $$ = mk(S_CONTINUE, @$); }
  | KW_RETURN                   { $$ = mk(S_RETURN, @$); }
  | KW_RETURN testlist_star     { $$ = mk(S_RETURN, @$); $$->lhs = $2; }
  | KW_ASSERT test              { $$ = mk(S_ASSERT, @$); $$->cond = $2; }
  | KW_ASSERT test ',' test     { $$ = mk(S_ASSERT, @$); $$->cond = $2; $$->lhs = $4; }
  | KW_DEL texprs               { $$ = mk(S_DEL, @$); $$->args = $2;
                                  for (int i = 0; i < $2.len; i++) check_target($2.items[i], "delete"); }
  | KW_DEL texprs ','           { $$ = mk(S_DEL, @$); $$->args = $2; }
  | KW_GLOBAL name_list         { $$ = mk(S_GLOBAL, @$); $$->names = $2; $$->text = "global"; }
  | KW_NONLOCAL name_list       { $$ = mk(S_GLOBAL, @$); $$->names = $2; $$->text = "nonlocal"; }
  | KW_RAISE                    { $$ = mk(S_RAISE, @$); }
  | KW_RAISE test               { $$ = mk(S_RAISE, @$); $$->lhs = $2; }
  | KW_RAISE test KW_FROM test  { $$ = mk(S_RAISE, @$); $$->lhs = $2; $$->rhs = $4; }
  | KW_YIELD                    { $$ = mk(S_YIELD, @$); }
  | KW_YIELD testlist_star      { $$ = mk(S_YIELD, @$); $$->lhs = $2; }
  | KW_YIELD KW_FROM test       { $$ = mk(S_YIELD, @$); $$->lhs = $3; $$->text = "from"; }
  | import_stmt
  ;

name_list:
    NAME                        { $$ = list1(mk_alias($1, NULL, @1)); }
  | name_list ',' NAME          { $$ = $1; nl_push(&$$, mk_alias($3, NULL, @3)); }
  ;

/* a = b = v keeps every target in args and the value in rhs */
expr_stmt:
    testlist_star               { $$ = mk(S_EXPR, @$); $$->lhs = $1; }
  | testlist_star AUGASSIGN testlist_star
                                { check_aug_target($1);
                                  $$ = mk(S_AUGASSIGN, @$); $$->op = $2; $$->lhs = $1; $$->rhs = $3; }
  | testlist_star ':' test      { check_target($1, "annotate");
                                  $$ = mk(S_ANNASSIGN, @$); $$->lhs = $1; nl_push(&$$->args, $3); }
  | testlist_star ':' test '=' testlist_star
                                { check_target($1, "annotate");
                                  $$ = mk(S_ANNASSIGN, @$); $$->lhs = $1; nl_push(&$$->args, $3);
                                  $$->rhs = $5; }
  | assign_chain                { $$ = mk(S_ASSIGN, @$);
                                  for (int i = 0; i + 1 < $1.len; i++) {
                                      check_target($1.items[i], "assign to");
                                      nl_push(&$$->args, $1.items[i]);
                                  }
                                  $$->rhs = $1.items[$1.len - 1]; }
  ;

assign_chain:
    testlist_star '=' testlist_star { $$ = list1($1); nl_push(&$$, $3); }
  | assign_chain '=' testlist_star  { $$ = $1; nl_push(&$$, $3); }
  ;

import_stmt:
    KW_IMPORT dotted_as_names   { $$ = mk(S_IMPORT, @$); $$->names = $2; }
  | KW_FROM from_module KW_IMPORT import_names
                                { $$ = mk(S_FROMIMPORT, @$); $$->text = $2; $$->names = $4; }
  ;

from_module:
    dotted_name
  | dots                        { $$ = $1; }
  | dots dotted_name            { $$ = arena_printf("%s%s", $1, $2); }
  ;

dots:
    '.'                         { $$ = "."; }
  | ELLIPSIS                    { $$ = "..."; }
  | dots '.'                    { $$ = arena_printf("%s.", $1); }
  | dots ELLIPSIS               { $$ = arena_printf("%s...", $1); }
  ;

import_names:
    '*'                         { $$ = list1(mk_alias("*", NULL, @1)); }
  | import_as_names             { $$ = $1; }
  | import_as_names ','         { $$ = $1; }
  | '(' import_as_names ')'     { $$ = $2; }
  | '(' import_as_names ',' ')' { $$ = $2; }
  ;

import_as_names:
    import_as_name              { $$ = list1($1); }
  | import_as_names ',' import_as_name { $$ = $1; nl_push(&$$, $3); }
  ;

import_as_name:
    NAME                        { $$ = mk_alias($1, NULL, @$); }
  | NAME KW_AS NAME             { $$ = mk_alias($1, $3, @$); }
  ;

dotted_as_names:
    dotted_as_name              { $$ = list1($1); }
  | dotted_as_names ',' dotted_as_name { $$ = $1; nl_push(&$$, $3); }
  ;

dotted_as_name:
    dotted_name                 { $$ = mk_alias($1, NULL, @$); }
  | dotted_name KW_AS NAME      { $$ = mk_alias($1, $3, @$); }
  ;

dotted_name:
    NAME
  | dotted_name '.' NAME        { $$ = arena_printf("%s.%s", $1, $3); }
  ;

/* ---- compound statements ---- */

compound:
    if_stmt | while_stmt | for_stmt | try_stmt | with_stmt
  | funcdef | classdef | decorated
  ;

/* A suite: statements on the header's line, or an indented block. */
suite:
    simple_line                 { $$ = $1; }
  | NEWLINE INDENT stmts DEDENT { $$ = $3; }
  ;

/* elif chains nest: the elif is an S_IF alone in its parent's orelse. */
if_stmt:
    KW_IF namedexpr ':' suite elif_tail
                                { $$ = mk(S_IF, @1); $$->cond = $2; $$->body = $4; $$->orelse = $5; }
  ;

elif_tail:
    %empty                      { $$ = (NodeList){0}; }
  | KW_ELSE ':' suite           { $$ = $3; }
  | KW_ELIF namedexpr ':' suite elif_tail
                                { Node *n = mk(S_IF, @1); n->cond = $2; n->body = $4; n->orelse = $5;
                                  $$ = list1(n); }
  ;

else_opt:
    %empty                      { $$ = (NodeList){0}; }
  | KW_ELSE ':' suite           { $$ = $3; }
  ;

while_stmt:
    KW_WHILE namedexpr ':' suite else_opt
                                { $$ = mk(S_WHILE, @1); $$->cond = $2; $$->body = $4; $$->orelse = $5; }
  ;

for_stmt:
    KW_FOR targetlist KW_IN testlist_star ':' suite else_opt
                                { check_target($2, "assign to");
                                  $$ = mk(S_FOR, @1); $$->lhs = $2; $$->rhs = $4;
                                  $$->body = $6; $$->orelse = $7; }
  ;

/* try and with are refused by the later passes; the handlers are parsed
 * (so their syntax is checked) but only the protected body is kept. */
try_stmt:
    KW_TRY ':' suite except_clauses else_opt
                                { $$ = mk(S_TRY, @1); $$->body = $3; $$->orelse = $5; }
  | KW_TRY ':' suite except_clauses else_opt KW_FINALLY ':' suite
                                { $$ = mk(S_TRY, @1); $$->body = $3; $$->orelse = $5; }
  | KW_TRY ':' suite KW_FINALLY ':' suite
                                { $$ = mk(S_TRY, @1); $$->body = $3; }
  ;

except_clauses:
    KW_EXCEPT ':' suite         { $$ = $3; }
  | KW_EXCEPT test ':' suite    { $$ = $4; }
  | KW_EXCEPT test KW_AS NAME ':' suite { $$ = $6; }
  | except_clauses KW_EXCEPT ':' suite { $$ = $1; }
  | except_clauses KW_EXCEPT test ':' suite { $$ = $1; }
  | except_clauses KW_EXCEPT test KW_AS NAME ':' suite { $$ = $1; }
  ;

with_stmt:
    KW_WITH with_items ':' suite { $$ = mk(S_WITH, @1); $$->args = $2; $$->body = $4; }
  ;

with_items:
    with_item                   { $$ = list1($1); }
  | with_items ',' with_item    { $$ = $1; nl_push(&$$, $3); }
  ;

with_item:
    test
  | test KW_AS expr             { $$ = $1; check_target($3, "assign to"); }
  ;

decorated:
    decorators funcdef          { $$ = $2; $$->decorators = $1; }
  | decorators classdef         { $$ = $2; $$->decorators = $1; }
  ;

decorators:
    decorator                   { $$ = list1($1); }
  | decorators decorator        { $$ = $1; nl_push(&$$, $2); }
  ;

decorator:
    '@' namedexpr NEWLINE       { $$ = $2; }
  ;

/* The node's range is `def name`, what messages about a function show. */
funcdef:
    KW_DEF NAME '(' params_opt ')' ':' suite
                                { $$ = mk(S_FUNCDEF, span(@1, @2)); $$->name = $2;
                                  $$->params = $4; $$->body = $7; }
  | KW_DEF NAME '(' params_opt ')' ARROW test ':' suite
                                { $$ = mk(S_FUNCDEF, span(@1, @2)); $$->name = $2;
                                  $$->params = $4; $$->rhs = $7; $$->body = $9; }
  ;

params_opt:
    %empty                      { $$ = (NodeList){0}; }
  | params                      { $$ = $1; }
  | params ','                  { $$ = $1; }
  ;

params:
    param                       { $$ = (NodeList){0}; param_add(&$$, $1); }
  | params ',' param            { $$ = $1; param_add(&$$, $3); }
  ;

param:
    NAME                        { $$ = mk_param($1, NULL, NULL, @$); }
  | NAME ':' test               { $$ = mk_param($1, $3, NULL, @$); }
  | NAME '=' test               { $$ = mk_param($1, NULL, $3, @$); }
  | NAME ':' test '=' test      { $$ = mk_param($1, $3, $5, @$); }
  | '*'                         { error_at(@$, "keyword-only parameters ('*') are not supported"); $$ = NULL; }
  | '*' NAME                    { $$ = mk_param($2, NULL, NULL, @$); $$->ival = 1; }   /* py: *args */
  | POW NAME                    { error_at(@$, "'**%s' parameters are not supported", $2); $$ = NULL; }
  | '/'                         { error_at(@$, "positional-only parameters ('/') are not supported"); $$ = NULL; }
  ;

classdef:
    KW_CLASS NAME ':' suite     { $$ = mk(S_CLASS, span(@1, @2)); $$->name = $2; $$->body = $4; }
  | KW_CLASS NAME '(' ')' ':' suite
                                { $$ = mk(S_CLASS, span(@1, @2)); $$->name = $2; $$->body = $6; }
  | KW_CLASS NAME '(' arglist ')' ':' suite
                                { $$ = mk(S_CLASS, span(@1, @2)); $$->name = $2;
                                  $$->args = $4->args; $$->kwargs = $4->kwargs; $$->body = $7; }
  ;

/* ---- expressions ---- */

/* Tuples without parentheses: `a, b`, `a,` */
testlist_star:
    exprs                       { $$ = tuple_or_item($1, false, @$); }
  | exprs ','                   { $$ = tuple_or_item($1, true, @$); }
  ;

exprs:
    test_or_star                { $$ = list1($1); }
  | exprs ',' test_or_star      { $$ = $1; nl_push(&$$, $3); }
  ;

test_or_star:
    test
  | '*' expr                    { $$ = mk(E_STARRED, @$); $$->lhs = $2; }
  ;

/* for targets and del: no comparisons (`in` ends the target) */
targetlist:
    texprs                      { $$ = tuple_or_item($1, false, @$); }
  | texprs ','                  { $$ = tuple_or_item($1, true, @$); }
  ;

texprs:
    expr_or_star                { $$ = list1($1); }
  | texprs ',' expr_or_star     { $$ = $1; nl_push(&$$, $3); }
  ;

expr_or_star:
    expr
  | '*' expr                    { $$ = mk(E_STARRED, @$); $$->lhs = $2; }
  ;

/* Conditions of if/elif/while, decorators, parenthesised atoms. */
namedexpr:
    test
  | NAME WALRUS test            { error_at(@2, "assignment expressions (':=') are not supported");
                                  $$ = $3; }
  ;

test:
    or_test
  | or_test KW_IF or_test KW_ELSE test
                                { $$ = mk(E_IFEXP, @$); $$->cond = $3; $$->lhs = $1; $$->rhs = $5; }
  | lambdef
  ;

lambdef:
    KW_LAMBDA ':' test          { $$ = mk(E_LAMBDA, @$); $$->lhs = $3; }
  | KW_LAMBDA lparams ':' test  { $$ = mk(E_LAMBDA, @$); $$->params = $2; $$->lhs = $4; }
  | KW_LAMBDA lparams ',' ':' test { $$ = mk(E_LAMBDA, @$); $$->params = $2; $$->lhs = $5; }
  ;

lparams:
    lparam                      { $$ = (NodeList){0}; param_add(&$$, $1); }
  | lparams ',' lparam          { $$ = $1; param_add(&$$, $3); }
  ;

lparam:
    NAME                        { $$ = mk_param($1, NULL, NULL, @$); }
  | NAME '=' test               { $$ = mk_param($1, NULL, $3, @$); }
  | '*' NAME                    { error_at(@$, "'*%s' parameters are not supported", $2); $$ = NULL; }
  ;

or_test:
    and_test
  | or_test KW_OR and_test      { $$ = mk_binop(E_BOOLOP, OP_OR, $1, $3, @$); }
  ;

and_test:
    not_test
  | and_test KW_AND not_test    { $$ = mk_binop(E_BOOLOP, OP_AND, $1, $3, @$); }
  ;

not_test:
    KW_NOT not_test             { $$ = mk_unary(OP_NOT, $2, @$); }
  | comparison
  ;

/* a < b <= c is one E_COMPARE: args [a, b, c], ops [<, <=] */
comparison:
    expr
  | comp_chain
  ;

comp_chain:
    expr comp_op expr           { $$ = mk(E_COMPARE, @$); nl_push(&$$->args, $1);
                                  compare_push($$, $2, $3); }
  | comp_chain comp_op expr     { $$ = $1; $$->loc = @$; compare_push($$, $2, $3); }
  ;

comp_op:
    '<'                         { $$ = OP_LT; }
  | '>'                         { $$ = OP_GT; }
  | EQ                          { $$ = OP_EQ; }
  | GE                          { $$ = OP_GE; }
  | LE                          { $$ = OP_LE; }
  | NE                          { $$ = OP_NE; }
  | KW_IN                       { $$ = OP_IN; }
  | KW_NOT KW_IN                { $$ = OP_NOTIN; }
  | KW_IS                       { $$ = OP_IS; }
  | KW_IS KW_NOT                { $$ = OP_ISNOT; }
  ;

/* The binary operators from | to the multiplicative ones: one level, by
 * the precedence declarations above (CPython's expr ... term, which cost a
 * reduction each for every operand: speed, issue 7). */
expr:
    factor
  | expr '|' expr               { $$ = mk_binop(E_BINOP, OP_BITOR, $1, $3, @$); }
  | expr '^' expr               { $$ = mk_binop(E_BINOP, OP_BITXOR, $1, $3, @$); }
  | expr '&' expr               { $$ = mk_binop(E_BINOP, OP_BITAND, $1, $3, @$); }
  | expr LSHIFT expr            { $$ = mk_binop(E_BINOP, OP_LSHIFT, $1, $3, @$); }
  | expr RSHIFT expr            { $$ = mk_binop(E_BINOP, OP_RSHIFT, $1, $3, @$); }
  | expr '+' expr               { $$ = mk_binop(E_BINOP, OP_ADD, $1, $3, @$); }
  | expr '-' expr               { $$ = mk_binop(E_BINOP, OP_SUB, $1, $3, @$); }
  | expr '*' expr               { $$ = mk_binop(E_BINOP, OP_MUL, $1, $3, @$); }
  | expr '/' expr               { $$ = mk_binop(E_BINOP, OP_DIV, $1, $3, @$); }
  | expr FLOORDIV expr          { $$ = mk_binop(E_BINOP, OP_FLOORDIV, $1, $3, @$); }
  | expr '%' expr               { $$ = mk_binop(E_BINOP, OP_MOD, $1, $3, @$); }
  | expr '@' expr               { $$ = mk_binop(E_BINOP, OP_MATMUL, $1, $3, @$); }
  ;

factor:
    '-' factor                  { $$ = mk_unary(OP_NEG, $2, @$); }
  | '+' factor                  { $$ = mk_unary(OP_POS, $2, @$); }
  | '~' factor                  { $$ = mk_unary(OP_INVERT, $2, @$); }
  | power
  ;

/* ** is right-associative and binds tighter than a unary operator on its
 * left: -2**2 is -(2**2), 2**-1 is 2**(-1). */
power:
    atom_expr
  | atom_expr POW factor        { $$ = mk_binop(E_BINOP, OP_POW, $1, $3, @$); }
  | KW_AWAIT atom_expr          { error_at(@1, "'await' is not supported"); $$ = $2; }
  ;

atom_expr:
    atom
  | atom_expr '(' ')'           { $$ = mk_call($1, NULL, @$); }
  | atom_expr '(' arglist ')'   { $$ = mk_call($1, $3, @$); }
  | atom_expr '(' arglist ',' ')' { $$ = mk_call($1, $3, @$); }
  | atom_expr '(' test comp_for ')'
                                { refuse_comprehension(@4); $$ = mk_call($1, NULL, @$); }
  | atom_expr '[' subscriptlist ']'
                                { $$ = mk(E_SUBSCRIPT, @$); $$->lhs = $1; $$->rhs = $3; }
  | atom_expr '.' NAME          { $$ = mk(E_ATTR, @$); $$->lhs = $1; $$->name = $3; }
  ;

/* An E_CALL without its callee collects the arguments. */
arglist:
    argument                    { $$ = mk(E_CALL, @$); call_add($$, $1); }
  | arglist ',' argument        { $$ = $1; call_add($$, $3); }
  ;

argument:
    test
  | NAME '=' test               { $$ = mk(N_KWARG, @$); $$->name = $1; $$->lhs = $3; }
  | '*' test                    { $$ = mk(E_STARRED, @$); $$->lhs = $2; }   /* py: f(*t) */
  | POW test                    { error_at(@$, "'**' arguments in calls are not supported"); $$ = NULL; }
  ;

/* a[i] has the index in rhs; a[i, j] an E_TUPLE of indices; slices are
 * E_SLICE with lhs:rhs:cond = lo:hi:step, each possibly NULL. */
subscriptlist:
    subscript
  | subscript_items             { $$ = tuple_or_item($1, true, @$); }
  | subscript_items subscript   { nl_push(&$1, $2); $$ = tuple_or_item($1, true, @$); }
  ;

subscript_items:
    subscript ','               { $$ = list1($1); }
  | subscript_items subscript ',' { $$ = $1; nl_push(&$$, $2); }
  ;

subscript:
    test
  | opt_test ':' opt_test       { $$ = mk(E_SLICE, @$); $$->lhs = $1; $$->rhs = $3; }
  | opt_test ':' opt_test ':' opt_test
                                { $$ = mk(E_SLICE, @$); $$->lhs = $1; $$->rhs = $3; $$->cond = $5; }
  ;

opt_test:
    %empty                      { $$ = NULL; }
  | test
  ;

comp_for:
    KW_FOR targetlist KW_IN or_test
  | comp_for KW_FOR targetlist KW_IN or_test
  | comp_for KW_IF or_test
  ;

atom:
    NAME                        { $$ = mk(E_NAME, @$); $$->name = $1; }
  | INT
  | FLOAT
  | strings                     { $$ = join_strings($1); }
  | KW_NONE                     { $$ = mk(E_NONE, @$); }
  | KW_TRUE                     { $$ = mk(E_BOOL, @$); $$->ival = 1; }
  | KW_FALSE                    { $$ = mk(E_BOOL, @$); $$->ival = 0; }
  | ELLIPSIS                    { $$ = mk(E_NONE, @$); $$->text = "..."; }
  | '(' ')'                     { $$ = mk(E_TUPLE, @$); }
  | '(' exprs ')'               { $$ = tuple_or_item($2, false, @$);
                                  if ($$->kind == E_STARRED)
                                      error_at($$->loc, "cannot use starred expression here"); }
  | '(' exprs ',' ')'           { $$ = tuple_or_item($2, true, @$); }
  | '(' NAME WALRUS test ')'    { error_at(@3, "assignment expressions (':=') are not supported");
                                  $$ = $4; }
  | '(' test comp_for ')'       { refuse_comprehension(@3); $$ = $2; }
  | '[' ']'                     { $$ = mk(E_LIST, @$); }
  | '[' exprs ']'               { $$ = mk(E_LIST, @$); $$->args = $2; }
  | '[' exprs ',' ']'           { $$ = mk(E_LIST, @$); $$->args = $2; }
  | '[' test comp_for ']'       { refuse_comprehension(@3); $$ = mk(E_LIST, @$); }
  | '{' '}'                     { $$ = mk(E_DICT, @$); }
  | '{' dict_items '}'          { $$ = mk(E_DICT, @$); $$->args = $2; }
  | '{' dict_items ',' '}'      { $$ = mk(E_DICT, @$); $$->args = $2; }
  | '{' exprs '}'               { $$ = mk(E_DICT, @$); $$->args = $2; $$->text = "set"; }
  | '{' exprs ',' '}'           { $$ = mk(E_DICT, @$); $$->args = $2; $$->text = "set"; }
  ;

/* keys and values alternate in args */
dict_items:
    test ':' test               { $$ = list1($1); nl_push(&$$, $3); }
  | dict_items ',' test ':' test { $$ = $1; nl_push(&$$, $3); nl_push(&$$, $5); }
  ;

/* "a" "b" is one literal, as in Python */
strings:
    STRING
  | strings STRING              { $$ = $1; $$->loc = @$; nl_push(&$$->args, $2); }
  ;

%%

#ifdef KERNC_PARSE_FAST
/* ---- the fast parse (grammar/parser_fast.c) ----
 * Without LAC the parser takes a default reduction before it knows the
 * lookahead is acceptable, so its view of an error is not exact; LAC's
 * check of every lookahead was a fifth of the parse.  A file without
 * errors parses to the same tree either way, so parse_source tries this
 * parser first, with diagnostics muted, and parses again with LAC's
 * messages when anything was reported. */
static int yyreport_syntax_error(const yypcontext_t *ctx, ParseState *ps)
{
    (void)ctx;
    (void)ps;
    (void)yypcontext_expected_tokens;
    error_at(*yypcontext_location(ctx), "invalid syntax");   /* muted: counted */
    return 0;
}

/* [from, to) of src, its first line first_line, parsed without LAC: the
 * module, or NULL when anything was reported (muted) */
static Node *parse_part(const Source *src, size_t from, size_t to, int first_line)
{
    Source part = {src->path, src->text + from, to - from};
    ParseState ps = {0};
    jmp_buf fatal;
    ps.src = &part;
    ps.first_line = first_line;
    ps.on_fatal = &fatal;
    diag_mute(true);
    layout_init(&ps);
    if (!lex_open(&ps)) {
        diag_mute(false);
        return NULL;
    }
    if (setjmp(fatal) != 0) {
        lex_close(&ps);
        diag_mute(false);
        return NULL;
    }
    int rc = kp_parse(&ps);
    lex_close(&ps);
    int reported = diag_mute(false);
    return rc == 0 && reported == 0 ? ps.module : NULL;
}

/* speed (issue 7): a big file parsed in two halves at once, the second on
 * a side thread of its own (util.c's side_start: its nodes in arena chunks
 * of its own), where a core is idle.  The
 * halves meet at a line that starts a top-level def or decorator after an
 * empty line, past the middle: the layout filter is at indentation 0
 * there, and a statement is complete, unless the line is inside a string
 * or brackets, which leaves one of the halves with an error (a string or
 * bracket open at its end, or a stray closing one).  Where either half
 * reports anything, the file is parsed again whole; where both parse,
 * the modules' statements joined are the whole file's. */
enum { PARSE_SPLIT_MIN = 256 << 10 };

typedef struct Part {
    const Source *src;
    size_t from;
    int first_line;
    NodeVisitFn *fn;       /* fn(n, ctx) on its nodes, with the depth check */
    void *ctx;
    Node *module;
    bool visited;          /* parsed, checked and visited */
    const Node *deep;      /* too deep: the node to report */
} Part;

/* A part parsed, then its depth checked and fn called on its nodes */
static void part_parse(Part *p, size_t to)
{
    p->module = parse_part(p->src, p->from, to, p->first_line);
    if (p->module && ast_check_depth_visit(p->module, PARSE_MAX_DEPTH, &p->deep, p->fn, p->ctx))
        p->deep = NULL;
    p->visited = p->module != NULL;
}

static void part_main(void *arg)
{
    Part *p = arg;
    part_parse(p, p->src->len);
}

/* The split: the offset of a line past the middle that starts with '@',
 * "def " or "class " after an empty line, and its line number; false if
 * none */
static bool split_point(const Source *src, size_t *at, int *line)
{
    const char *t = src->text, *mid = t + src->len / 2, *end = t + src->len;
    const char *p = memchr(mid, '\n', (size_t)(end - mid));
    for (; p && p + 2 < end; p = memchr(p + 1, '\n', (size_t)(end - p - 1))) {
        const char *q = p + 1;   /* a line start after p's newline */
        if (p[-1] != '\n')
            continue;            /* the line before is not empty */
        if (*q == '@' || (end - q > 4 && memcmp(q, "def ", 4) == 0) ||
            (end - q > 6 && memcmp(q, "class ", 6) == 0)) {
            int n = 1;
            for (const char *r = t; (r = memchr(r, '\n', (size_t)(q - r))) != NULL; r++)
                n++;
            *at = (size_t)(q - t);
            *line = n;
            return true;
        }
    }
    return false;
}

/* The halves: false where they were not both parsed (*first: the first
 * half's part, visited or not) */
static bool parse_halves(Source *src, Part *first, void *ctx2)
{
    Part second = {src, 0, 0, first->fn, ctx2, NULL, false, NULL};
    SideThread thread;
    if (!ctx2 || !split_point(src, &second.from, &second.first_line) ||
        !side_start(&thread, (long)src->len, PARSE_SPLIT_MIN, part_main, &second))
        return false;
    part_parse(first, second.from);
    side_join(&thread);
    if (!first->visited || !second.visited)
        return false;
    for (int i = 0; i < second.module->body.len; i++)
        nl_push(&first->module->body, second.module->body.items[i]);
    if (!first->deep)
        first->deep = second.deep;
    return true;
}

Node *parse_fast(Source *src, NodeVisitFn *fn, void *ctx, void *ctx2, const Node **deep)
{
    Part whole = {src, 0, 1, fn, ctx, NULL, false, NULL};
    if (src->len == 0 || !parse_halves(src, &whole, ctx2))
        part_parse(&whole, src->len);
    *deep = whole.deep;
    return whole.deep ? NULL : whole.module;
}
#else
/* ---- syntax error messages ---- */

static bool sym_is(yysymbol_kind_t k, const char *name)
{
    return strcmp(yysymbol_name(k), name) == 0;
}

/* Tokens that can start an expression: when the parser expects one, they
 * are summed up as "an expression". */
static bool starts_expression(yysymbol_kind_t k)
{
    switch (k) {
    case YYSYMBOL_NAME: case YYSYMBOL_INT: case YYSYMBOL_FLOAT: case YYSYMBOL_STRING:
    case YYSYMBOL_KW_NONE: case YYSYMBOL_KW_TRUE: case YYSYMBOL_KW_FALSE:
    case YYSYMBOL_KW_NOT: case YYSYMBOL_KW_LAMBDA: case YYSYMBOL_KW_AWAIT:
    case YYSYMBOL_ELLIPSIS:
        return true;
    default:
        return sym_is(k, "'('") || sym_is(k, "'['") || sym_is(k, "'{'") || sym_is(k, "'-'")
            || sym_is(k, "'+'") || sym_is(k, "'~'") || sym_is(k, "'*'");
    }
}

/* Tokens that continue an expression: binary operators, trailers,
 * comparisons.  Listing them would drown the one token that matters. */
static bool continues_expression(yysymbol_kind_t k)
{
    static const char *const ops[] = {
        "'**'", "'//'", "'<<'", "'>>'", "'<='", "'>='", "'=='", "'!='",
        "'<'", "'>'", "'|'", "'^'", "'&'", "'+'", "'-'", "'*'", "'/'", "'%'",
        "'@'", "'.'", "'('", "'['", "'if'", "'or'", "'and'", "'not'", "'in'",
        "'is'", "string literal", "augmented assignment", "'='", "':='",
    };
    for (size_t i = 0; i < sizeof ops / sizeof ops[0]; i++)
        if (sym_is(k, ops[i]))
            return true;
    return false;
}

/* The token's own text for the message, when it is short and on one line. */
static const char *token_text(ParseState *ps, const Token *t)
{
    Loc l = t->loc;
    if (l.first_line != l.last_line || l.first_line < 1 || l.first_line > ps->nlines)
        return NULL;
    const char *p = ps->lines[l.first_line];
    /* Columns count characters; step over UTF-8 continuation bytes. */
    int col = 1;
    for (; *p && *p != '\n' && col < l.first_column; p++)
        if (((unsigned char)*p & 0xC0) != 0x80)
            col++;
    const char *start = p;
    for (; *p && *p != '\n' && col <= l.last_column; p++)
        if (((unsigned char)p[1] & 0xC0) != 0x80)
            col++;
    if (p == start || p - start > 40)
        return NULL;
    return arena_strndup(start, (size_t)(p - start));
}

static const char *describe_token(ParseState *ps, yysymbol_kind_t k, const Token *t)
{
    if (k == YYSYMBOL_YYEOF || k == YYSYMBOL_NEWLINE || k == YYSYMBOL_INDENT
        || k == YYSYMBOL_DEDENT)
        return yysymbol_name(k);
    const char *text = token_text(ps, t);
    if (text)
        return arena_printf("'%s'", text);
    return yysymbol_name(k);
}

/* "after 'if' statement on line 3", from the first token of the previous
 * logical line (the compound statement's header). */
static const char *block_owner(ParseState *ps)
{
    const Token *h = &ps->prev_head;
    switch (h->kind) {
    case T_KW_DEF:
        return arena_printf("function definition on line %d", h->loc.first_line);
    case T_KW_CLASS:
        return arena_printf("class definition on line %d", h->loc.first_line);
    case T_KW_IF: case T_KW_ELIF: case T_KW_ELSE: case T_KW_WHILE: case T_KW_FOR:
    case T_KW_TRY: case T_KW_EXCEPT: case T_KW_FINALLY: case T_KW_WITH:
        return arena_printf("'%s' statement on line %d", token_text(ps, h), h->loc.first_line);
    default:
        return NULL;
    }
}

static int yyreport_syntax_error(const yypcontext_t *ctx, ParseState *ps)
{
    yysymbol_kind_t tok = yypcontext_token(ctx);
    Loc loc = *yypcontext_location(ctx);
    yysymbol_kind_t expected[YYNTOKENS];
    int nexp = yypcontext_expected_tokens(ctx, expected, YYNTOKENS);
    if (nexp < 0)
        nexp = 0;

    /* The layout filter has already said why the file ended too soon. */
    if (tok == YYSYMBOL_YYEOF && ps->eof_reported)
        return 0;

    bool want_expr = false, want_indent = false, want_colon = false, want_comma = false,
         want_newline = false;
    const char *others[4];
    int nothers = 0, nrest = 0;
    for (int i = 0; i < nexp; i++) {
        yysymbol_kind_t k = expected[i];
        if (k == YYSYMBOL_NAME)
            want_expr = true;
        if (k == YYSYMBOL_INDENT && nexp == 1)
            want_indent = true;  /* the block of a header, not a stray indent */
        if (k == YYSYMBOL_NEWLINE)
            want_newline = true;
        if (sym_is(k, "':'"))
            want_colon = true;
        if (sym_is(k, "','"))
            want_comma = true;
    }
    for (int i = 0; i < nexp; i++) {
        yysymbol_kind_t k = expected[i];
        if (want_expr && starts_expression(k))
            continue;
        if (nexp > 3 && continues_expression(k))
            continue;
        if (nothers < 4)
            others[nothers++] = yysymbol_name(k);
        else
            nrest++;
    }

    /* The previous token, when it is on the error's line: "after '+'". */
    const Token *prev = &ps->prev;
    bool prev_here = prev->kind && prev->kind != T_NEWLINE && prev->kind != T_INDENT
                     && prev->kind != T_DEDENT && prev->loc.last_line == loc.first_line;
    const char *prev_text = prev_here ? token_text(ps, prev) : NULL;

    /* A line that starts no deeper than the line of the innermost open
     * bracket, while that bracket is still open: the bracket was most
     * likely never closed (CPython reports it the same way). */
    if (ps->nbrackets > 0 && prev->kind && ps->last.loc.first_line > prev->loc.last_line) {
        Loc open = ps->bracket_loc[ps->nbrackets - 1];
        if (layout_line_indent(ps, ps->last.loc.first_line)
            <= layout_line_indent(ps, open.first_line)) {
            layout_unclosed(ps);
            return 0;
        }
    }
    /* The scanner dropped a character of this line: that error explains
     * this one. */
    if (loc.first_line == ps->bad_char_line)
        return 0;
    if (tok == YYSYMBOL_KW_ASYNC || tok == YYSYMBOL_KW_AWAIT) {
        error_at(loc, "'%s' is not supported", tok == YYSYMBOL_KW_ASYNC ? "async" : "await");
        return 0;
    }
    if (tok == YYSYMBOL_INDENT) {
        error_at(loc, "unexpected indent");
        return 0;
    }
    if (want_indent) {
        const char *owner = block_owner(ps);
        if (owner)
            error_at(loc, "expected an indented block after %s", owner);
        else
            error_at(loc, "expected an indented block");
        return 0;
    }
    if (tok == YYSYMBOL_NEWLINE && want_colon && prev_here) {
        /* Point just after the last token, where the ':' belongs. */
        Loc at = {prev->loc.last_line, prev->loc.last_column + 1,
                  prev->loc.last_line, prev->loc.last_column + 1};
        switch (ps->head.kind) {
        case T_KW_IF: case T_KW_ELIF: case T_KW_WHILE:
            error_at(at, "expected ':' after '%s' condition", token_text(ps, &ps->head));
            return 0;
        case T_KW_DEF:
            error_at(at, "expected ':' after the function signature");
            return 0;
        default:
            error_at(at, "expected ':'");
            return 0;
        }
    }
    if (tok == YYSYMBOL_KW_ELSE || tok == YYSYMBOL_KW_ELIF || tok == YYSYMBOL_KW_EXCEPT
        || tok == YYSYMBOL_KW_FINALLY) {
        /* After an error recovery it is the tail of the broken statement. */
        if (ps->recovered)
            return 0;
        if (tok == YYSYMBOL_KW_ELIF)
            error_at(loc, "'elif' without a matching 'if'");
        else if (tok == YYSYMBOL_KW_ELSE)
            error_at(loc, "'else' without a matching 'if', 'for', 'while' or 'try'");
        else
            error_at(loc, "'%s' without a matching 'try'",
                     tok == YYSYMBOL_KW_EXCEPT ? "except" : "finally");
        return 0;
    }
    if (want_expr && !starts_expression(tok) && nothers == 0) {
        if (prev_text)
            error_at(loc, "expected an expression after '%s'", prev_text);
        else
            error_at(loc, "expected an expression");
        return 0;
    }
    /* brackets open before the token, not the one it opens */
    int depth = ps->nbrackets - (sym_is(tok, "'('") || sym_is(tok, "'['")
                                 || sym_is(tok, "'{'"));
    if (starts_expression(tok) && want_comma && depth > 0) {
        error_at(loc, "invalid syntax. Perhaps you forgot a comma?");
        return 0;
    }
    if (want_newline && (tok == YYSYMBOL_NAME || tok == YYSYMBOL_INT || tok == YYSYMBOL_FLOAT
                         || tok == YYSYMBOL_STRING || tok == YYSYMBOL_KW_NONE
                         || tok == YYSYMBOL_KW_TRUE || tok == YYSYMBOL_KW_FALSE)) {
        error_at(loc, "invalid syntax: statements must be separated by a newline or ';'");
        return 0;
    }

    StrBuf msg = {0};
    ps->syntax_error_loc = loc;
    if (tok == YYSYMBOL_YYEOF)
        sb_puts(&msg, "unexpected end of file");
    else
        sb_printf(&msg, "invalid syntax: unexpected %s", describe_token(ps, tok, &ps->last));
    if (nothers > 0 && nothers <= 3 && nrest == 0) {
        sb_puts(&msg, ", expected ");
        if (want_expr)
            sb_puts(&msg, "an expression, ");
        for (int i = 0; i < nothers; i++)
            sb_printf(&msg, "%s%s", others[i],
                      i + 2 == nothers ? " or " : i + 1 == nothers ? "" : ", ");
    } else if (want_expr && nothers == 0) {
        sb_puts(&msg, ", expected an expression");
    }
    error_at(loc, "%s", msg.s);
    sb_free(&msg);
    return 0;
}

/* ---- entry point ---- */

Node *parse_source(Source *src)
{
    return parse_source_visit(src, NULL, NULL, NULL);
}

Node *parse_source_visit(Source *src, NodeVisitFn *fn, void *ctx, void *ctx2)
{
    ParseState ps = {0};
    jmp_buf fatal;
    int errors_before = error_count();
    layout_prepare(src);
    ps.src = src;
    ps.on_fatal = &fatal;
    if (error_count() == errors_before) {
        /* speed (issue 7): without LAC first (parse_fast); a file with
         * anything to report is parsed again here */
        const Node *deep = NULL;
        Node *m = parse_fast(src, fn, ctx, ctx2, &deep);
        if (deep) {
            error_at(deep->loc, "expression too complex: more than %d levels of nesting",
                     PARSE_MAX_DEPTH);
            return NULL;
        }
        if (m)
            return m;
    }

    layout_init(&ps);
    if (!lex_open(&ps))
        return NULL;
    if (setjmp(fatal) != 0) {
        /* lexer.l reported the fatal error already */
        lex_close(&ps);
        return NULL;
    }
    int rc = kp_parse(&ps);
    lex_close(&ps);
    const Node *deep = NULL;
    if (ps.module && !ast_check_depth_visit(ps.module, PARSE_MAX_DEPTH, &deep, fn, ctx))
        error_at(deep->loc, "expression too complex: more than %d levels of nesting",
                 PARSE_MAX_DEPTH);
    if (rc != 0 || error_count() > errors_before || !ps.module)
        return NULL;
    return ps.module;
}
#endif
