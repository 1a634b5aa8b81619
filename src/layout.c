/*
 * layout.c - the filter between the raw scanner (grammar/lexer.l) and the
 * grammar (grammar/parser.y), as PostgreSQL's base_yylex sits between its
 * scanner and grammar: Python's line structure becomes tokens here.
 *
 * The scanner returns a NEWLINE at every end of line.  This filter drops
 * those of blank and comment-only lines and those inside brackets, and at
 * the first token of each logical line compares its indentation with a
 * stack of columns (CPython's Parser/lexer/lexer.c is the model): deeper is
 * one INDENT, shallower is one DEDENT per level left, and a column that
 * matches no outer level is an error.  Owed tokens are counted in `pending`
 * and handed out one per call, the real token waiting in `saved`; nothing is
 * pushed back into the scanner.  At the end of the file a missing final
 * NEWLINE is supplied and the owed DEDENTs are emitted.
 *
 * Indentation columns count a tab as up to the next multiple of 8, and are
 * also computed with tabs counting 1: two lines whose order differs under
 * the two measures mix tabs and spaces inconsistently, an error as in
 * Python 3.  Brackets are matched here too, so that an unclosed or stray
 * bracket is reported where it is, not where the grammar notices; past
 * LAYOUT_MAX_BRACKETS levels the file ends there, as in CPython.
 *
 * Before any of this, layout_prepare decodes the text as Python does (BOM,
 * universal newlines) and reports what is not UTF-8.
 */
#include "kernc.h"
#include "parser.h"

#include <string.h>

/* The length of the UTF-8 sequence at p (1 to 4 bytes), or 0 when the
 * bytes there are not UTF-8, with what is wrong in *why. */
static int utf8_length(const unsigned char *p, const unsigned char *end, const char **why)
{
    unsigned char c = p[0];
    int n;
    unsigned char lo = 0x80, hi = 0xBF;   /* the second byte's range */
    if (c < 0x80)
        return 1;
    if (c >= 0xC2 && c <= 0xDF)
        n = 2;
    else if (c >= 0xE0 && c <= 0xEF) {
        n = 3;
        if (c == 0xE0)
            lo = 0xA0;         /* overlong */
        if (c == 0xED)
            hi = 0x9F;         /* surrogates */
    } else if (c >= 0xF0 && c <= 0xF4) {
        n = 4;
        if (c == 0xF0)
            lo = 0x90;         /* overlong */
        if (c == 0xF4)
            hi = 0x8F;         /* past U+10FFFF */
    } else {
        *why = "invalid start byte";
        return 0;
    }
    for (int i = 1; i < n; i++) {
        if (p + i >= end) {
            *why = "unexpected end of data";
            return 0;
        }
        unsigned char b = p[i];
        if (b < (i == 1 ? lo : 0x80) || b > (i == 1 ? hi : 0xBF)) {
            *why = "invalid continuation byte";
            return 0;
        }
    }
    return n;
}

/* Python decodes a source file as UTF-8 with universal newlines before it
 * tokenizes it: a leading byte order mark is dropped, and CRLF and a lone
 * CR (old Mac files) end a line as LF does.  The same is done here, once,
 * and the normalised text replaces the Source's (diag.c shares it, so the
 * lines it shows are the lines the scanner counts).  What cannot be decoded
 * (bytes that are not UTF-8, and NUL, which Python refuses too) is
 * reported here, at its line and column, once per line; the scanner then
 * drops those bytes silently, in strings and comments as elsewhere. */
void layout_prepare(Source *src)
{
    const char *text = src->text, *end = text + src->len;
    if (src->len >= 3 && memcmp(text, "\xEF\xBB\xBF", 3) == 0)
        text += 3;
    char *out = arena_alloc((size_t)(end - text) + 1), *o = out;
    /* speed (issue 7): text without a carriage return is copied as is */
    const char *cr = memchr(text, '\r', (size_t)(end - text));
    if (!cr) {
        memcpy(out, text, (size_t)(end - text));
        o = out + (end - text);
        text = end;
    }
    for (const char *p = text; p < end; p++) {
        if (*p == '\r') {
            *o++ = '\n';
            if (p + 1 < end && p[1] == '\n')
                p++;
        } else {
            *o++ = *p;
        }
    }
    *o = '\0';
    src->text = out;
    src->len = (size_t)(o - out);

    const unsigned char *p = (const unsigned char *)out, *stop = (const unsigned char *)o;
    /* speed (issue 7): ASCII without NUL bytes has nothing to report, and
     * most files are that; the walk below counts lines and columns only
     * for the first byte that is not */
    const unsigned char *q = p;
    while (q < stop && *q && *q < 0x80)
        q++;
    if (q == stop)
        return;
    int line = 1, col = 1, reported = 0;
    while (p < stop) {
        const char *why = NULL;
        int n = *p ? utf8_length(p, stop, &why) : 0;
        if (n == 0 && reported != line) {
            Loc at = {line, col, line, col};
            if (*p == 0)
                error_at(at, "source code cannot contain null bytes");
            else
                error_at(at, "the file is not valid UTF-8: cannot decode byte 0x%02x (%s)",
                         *p, why);
            reported = line;
        }
        if (n == 0)
            n = 1;
        /* columns as the scanner counts them: bytes 0x80-0xBF do not count */
        for (int i = 0; i < n; i++, p++) {
            if (*p == '\n') {
                line++;
                col = 1;
            } else if ((*p & 0xC0) != 0x80) {
                col++;
            }
        }
    }
}

void layout_init(ParseState *ps)
{
    const char *text = ps->src->text, *end = text + ps->src->len;
    int first = ps->first_line > 0 ? ps->first_line : 1;   /* lines[first] is text */
    int n = first;
    for (const char *p = text; (p = memchr(p, '\n', (size_t)(end - p))) != NULL; p++)
        n++;
    ps->lines = arena_alloc(sizeof *ps->lines * (size_t)(n + 2));
    ps->lines[first] = text;
    int line = first;
    for (const char *p = text; (p = memchr(p, '\n', (size_t)(end - p))) != NULL; p++)
        ps->lines[++line] = p + 1;
    ps->nlines = line;
    ps->nindents = 1;
    ps->indents[0] = ps->alt_indents[0] = 0;
    ps->at_bol = true;
}

/* The indentation of a line, as CPython measures it. */
static void line_indent(ParseState *ps, int line, int *col, int *alt)
{
    *col = *alt = 0;
    if (line < 1 || line > ps->nlines || !ps->lines[line])
        return;
    const char *end = ps->src->text + ps->src->len;
    for (const char *p = ps->lines[line]; p < end; p++) {
        if (*p == ' ') {
            (*col)++;
            (*alt)++;
        } else if (*p == '\t') {
            *col = (*col / 8 + 1) * 8;
            (*alt)++;
        } else if (*p == '\f') {
            *col = *alt = 0;
        } else {
            break;
        }
    }
}

/* Just past the last character of the file. */
static Loc eof_loc(ParseState *ps)
{
    int line = ps->line, col = ps->col;
    if (col == 1 && line > 1) {
        /* the file ends with a newline: point at the end of the last line */
        line--;
        const char *p = ps->lines[line], *end = ps->src->text + ps->src->len;
        col = 1;
        for (; p < end && *p != '\n' && *p != '\r'; p++)
            if (((unsigned char)*p & 0xC0) != 0x80)
                col++;
    }
    return (Loc){line, col, line, col};
}

static Token make_token(int kind, Loc at)
{
    Token t = {0};
    t.kind = kind;
    t.loc = (Loc){at.first_line, at.first_column, at.first_line, at.first_column};
    return t;
}

static char closer_of(char open)
{
    return open == '(' ? ')' : open == '[' ? ']' : '}';
}

/* Compares the indentation of the line that starts with `t` with the
 * stack; sets `pending`.  Mismatches are reported and then treated so that
 * the rest of the file still parses sensibly. */
static void indent_line(ParseState *ps, const Token *t)
{
    int col, alt;
    line_indent(ps, t->loc.first_line, &col, &alt);
    int top = ps->nindents - 1;
    Loc at = make_token(0, t->loc).loc;
    const char *tab_error = "inconsistent use of tabs and spaces in indentation";

    if (col == ps->indents[top]) {
        if (alt != ps->alt_indents[top])
            error_at(at, "%s", tab_error);
        return;
    }
    if (col > ps->indents[top]) {
        if (ps->mismatch_level == ps->nindents && col == ps->mismatch_col)
            return;
        if (ps->nindents == LAYOUT_MAX_INDENT) {
            error_at(at, "too many levels of indentation");
            return;
        }
        if (alt <= ps->alt_indents[top])
            error_at(at, "%s", tab_error);
        ps->indents[ps->nindents] = col;
        ps->alt_indents[ps->nindents] = alt;
        ps->nindents++;
        ps->pending = 1;
        return;
    }
    while (ps->nindents > 1 && col < ps->indents[ps->nindents - 1]) {
        ps->nindents--;
        ps->pending--;
    }
    ps->mismatch_level = 0;
    top = ps->nindents - 1;
    if (col != ps->indents[top]) {
        /* The line is taken as part of the enclosing block, and so are
         * the lines after it at the same column: one error, not one per
         * line.  The block's own column stays valid for its other lines. */
        error_at(at, "unindent does not match any outer indentation level");
        ps->mismatch_col = col;
        ps->mismatch_level = ps->nindents;
    } else if (alt != ps->alt_indents[top]) {
        error_at(at, "%s", tab_error);
    }
}

/* Brackets: returns false when the token is to be dropped. */
static bool track_bracket(ParseState *ps, Token *t)
{
    switch (t->kind) {
    case '(':
    case '[':
    case '{':
        if (ps->nbrackets == LAYOUT_MAX_BRACKETS) {
            /* as in CPython, the end of scanning: every later bracket
             * would be reported as unmatched */
            error_at(t->loc, "too many nested parentheses");
            ps->nbrackets = 0;
            ps->stop = ps->eof_reported = true;
            t->kind = T_YYEOF;
            t->loc = eof_loc(ps);
            return true;
        }
        ps->bracket_char[ps->nbrackets] = (char)t->kind;
        ps->bracket_loc[ps->nbrackets] = t->loc;
        ps->nbrackets++;
        return true;
    case ')':
    case ']':
    case '}': {
        if (ps->nbrackets == 0) {
            error_at(t->loc, "unmatched '%c'", t->kind);
            return false;
        }
        char open = ps->bracket_char[--ps->nbrackets];
        Loc oloc = ps->bracket_loc[ps->nbrackets];
        if (closer_of(open) != t->kind) {
            if (oloc.first_line != t->loc.first_line)
                error_at(t->loc, "closing parenthesis '%c' does not match opening "
                                 "parenthesis '%c' on line %d",
                         t->kind, open, oloc.first_line);
            else
                error_at(t->loc, "closing parenthesis '%c' does not match opening "
                                 "parenthesis '%c'", t->kind, open);
            /* read it as the right closer: the grammar sees balanced input */
            t->kind = closer_of(open);
        }
        return true;
    }
    default:
        return true;
    }
}

int layout_line_indent(ParseState *ps, int line)
{
    int col, alt;
    line_indent(ps, line, &col, &alt);
    return col;
}

/* The innermost open bracket will not be closed: say so where it is, and
 * forget the brackets so that line structure resumes. */
void layout_unclosed(ParseState *ps)
{
    if (ps->nbrackets == 0)
        return;
    char open = ps->bracket_char[ps->nbrackets - 1];
    Loc at = ps->bracket_loc[ps->nbrackets - 1];
    ps->nbrackets = 0;
    /* not twice at one place: the bracket itself was the syntax error */
    if (at.first_line == ps->syntax_error_loc.first_line
        && at.first_column == ps->syntax_error_loc.first_column)
        return;
    error_at(at, "'%c' was never closed", open);
}

static Token layout_next(ParseState *ps)
{
    for (;;) {
        if (ps->pending > 0) {
            ps->pending--;
            return make_token(T_INDENT, ps->saved.loc);
        }
        if (ps->pending < 0) {
            ps->pending++;
            return make_token(T_DEDENT, ps->saved.loc);
        }
        Token t = {0};
        if (ps->have_saved) {
            /* a saved end of file goes through the end-of-file steps again */
            ps->have_saved = false;
            t = ps->saved;
            if (t.kind != T_YYEOF)
                return t;
        } else if (ps->at_eof || ps->stop) {
            t.kind = T_YYEOF;
            if (ps->stop) {
                t.loc = eof_loc(ps);
                return t;
            }
        } else {
            t.kind = lex_raw(&t.val, &t.loc, ps);
        }

        if (t.kind == T_NEWLINE) {
            if (ps->nbrackets > 0 || ps->at_bol)
                continue;  /* inside brackets, or a blank/comment line */
            ps->at_bol = true;
            return t;
        }

        if (t.kind == T_YYEOF) {
            t.loc = eof_loc(ps);
            if (ps->nbrackets > 0) {
                layout_unclosed(ps);
                ps->eof_reported = true;
                return t;
            }
            if (!ps->at_eof) {
                /* messages about the last block name its header */
                ps->at_eof = true;
                ps->prev_head = ps->head;
                ps->head = (Token){0};
            }
            if (!ps->at_bol) {
                ps->at_bol = true;
                ps->saved = t;
                ps->have_saved = true;
                return make_token(T_NEWLINE, t.loc);
            }
            if (ps->nindents > 1) {
                ps->pending = -(ps->nindents - 1);
                ps->nindents = 1;
                ps->saved = t;
                ps->have_saved = true;
                continue;
            }
            return t;
        }

        if (!track_bracket(ps, &t))
            continue;

        if (ps->at_bol) {
            ps->at_bol = false;
            ps->prev_head = ps->head;
            ps->head = t;
            indent_line(ps, &t);
            if (ps->pending) {
                ps->saved = t;
                ps->have_saved = true;
                continue;
            }
        }
        return t;
    }
}

int layout_lex(KP_STYPE *lval, Loc *lloc, ParseState *ps)
{
    Token t = layout_next(ps);
    ps->prev = ps->last;
    ps->last = t;
    *lval = t.val;
    *lloc = t.loc;
    return t.kind;
}
