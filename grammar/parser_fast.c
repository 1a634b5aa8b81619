/*
 * parser_fast.c - the grammar of parser.y compiled a second time, without
 * LAC (bison -Fparse.lac=none; the Makefile generates parser_fast.gen.c):
 * parse_fast, which parse_source tries first.  LAC checks every lookahead
 * before a default reduction so that a syntax error is reported with the
 * exact set of expected tokens; a file without errors parses to the same
 * tree without it, at four fifths of the cost.  Anything reported during
 * the fast parse (muted) sends the file to the LAC parser, so every message
 * is the LAC parser's.  A big file is parsed in two halves at once
 * (parser.y, parse_halves).
 */
#define KERNC_PARSE_FAST 1
#include "parser_fast.gen.c"
