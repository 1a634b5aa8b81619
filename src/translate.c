/*
 * translate.c - the pass driver, for kernc (main.c) and kernc run (run.c):
 *
 *   parse (layout.c, parser.y) -> resolve (resolve.c: module-level names,
 *   decorators, signatures) -> type (type.c: every kernel signature and,
 *   through calls, every device-function specialisation; ufunc.c: the
 *   kernels of @vectorize, @guvectorize and cuda.reduce) -> check (check.c)
 *   -> emit (emit_host.c: emit_cuda, emit_c, emit_header).
 *
 * Every pass reports all the errors it finds and the driver stops after a
 * pass that reported any, so one run shows every error of a file.
 */
#include "kernc.h"

/* Resolve and type a parsed module: the Program, or NULL after errors. */
static Program *analyze(Node *module, const Options *opt)
{
    int errors_before = error_count();
    types_init();
    type_reset();
    PtrVec fdefs = resolve_module(module, opt);

    /* Pass 3: type every kernel signature and eager device function; their
     * calls type the device-function specialisations they need. */
    for (int i = 0; i < fdefs.len; i++) {
        FuncDef *fd = fdefs.items[i];
        if (!resolve_check_params(fd))
            continue;
        if (fd->def->decorators.len != 1)
            continue;
        if (fd->sig_failed)
            continue;
        if (fd->is_kernel && fd->nsigs == 0) {
            sema_error(fd->def->loc, "kernel '%s' has no signature; give one in "
                       "@cuda.jit(...), as parameter annotations, or with --signature "
                       "%s=void(...)", fd->name, fd->name);
            continue;
        }
        for (int j = 0; j < fd->nsigs; j++) {
            Signature *s = &fd->sigs[j];
            if (fd->is_kernel && s->ret != ty_void) {
                sema_error(fd->def->loc, "the signature of kernel '%s' must return void, "
                           "not %s", fd->name, ty_name(s->ret));
                continue;
            }
            if (s->nparams != fd->def->params.len) {
                sema_error(fd->def->loc, "the signature of '%s' has %d parameter%s but the "
                           "function takes %d", fd->name, s->nparams,
                           s->nparams == 1 ? "" : "s", fd->def->params.len);
                continue;
            }
            int e = error_count(), from = type_nfinal();
            type_kernel(fd, s, fd->def->loc);
            if (error_count() > e)
                type_mark_failed(from);
        }
    }
    int e = error_count(), from = type_nfinal();
    ufunc_type_all(&fdefs, errors_before);
    if (error_count() > e)
        type_mark_failed(from);

    Program *p = arena_alloc(sizeof *p);
    type_finish(p);
    if (error_count() > errors_before) {
        /* every error of the file in one run: the check pass still runs
         * on the functions that typed cleanly (not on the others: no
         * cascades) */
        check_program(p, opt);
        return NULL;
    }
    p->ufuncs = arena_alloc(sizeof *p->ufuncs * (size_t)(fdefs.len ? fdefs.len : 1));
    for (int i = 0; i < fdefs.len; i++)
        if (((FuncDef *)fdefs.items[i])->ufunc)
            p->ufuncs[p->nufuncs++] = ((FuncDef *)fdefs.items[i])->ufunc;
    return p;
}

Program *translate(Source *src, const Options *opt)
{
    diag_init(src);
    Node *module = parse_source(src);
    if (!module || error_count() > 0)
        return NULL;
    Program *prog = analyze(module, opt);
    if (!prog || error_count() > 0)
        return NULL;
    check_program(prog, opt);
    if (error_count() > 0)
        return NULL;
    range_program(prog);
    return prog;
}

bool translate_emit(Program *p, const Options *opt, StrBuf *code, StrBuf *header)
{
    if (code && opt->target_c)
        emit_c(code, p, opt);
    else if (code)
        emit_cuda(code, p, opt);
    if (header)
        emit_header(header, p, opt);
    return error_count() == 0;
}
