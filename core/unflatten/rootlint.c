/* rootlint.c - the end of UnflattenedModule.__init__: after
 * _reorder_submodules, `self.graph.lint()` checks the root graph with the
 * UnflattenedModule as its owning_module, so every get_attr and
 * call_module target must resolve on the module tree as _deduplicate_
 * modules and _dispatch_modules left it. It can fail: a call made from
 * outside its parent ("a.b@2" called from the root) that deduplication
 * redirects to an equivalent call name made under another parent
 * ("a.b@1", a child of a@1, not of a); a state path the root sank whose
 * module deduplication replaced with an equivalent one that never got that
 * state (an alias shares the _modules dict). torch raises the RuntimeError
 * of Graph.lint there, before finalize(); so does the DONE event. */
#include <string.h>

#include "core/unflatten/modgraphs.h"
#include "core/unflatten/rootlint.h"
#include "core/unflatten/outline.h"

/* The entry whose call is root node n, or NULL. */
static const exdb_uentry *entry_of_call(const exdb_urun *r, const exdb_node *n) {
    for (uint32_t p = 0; p < r->nparts; p++)
        for (uint32_t e = 0; e < r->parts[p].n; e++)
            if (r->parts[p].entries[e].parent_call_module == n)
                return &r->parts[p].entries[e];
    return NULL;
}

/* torch's RuntimeError for finding f, then exdb's explanation. */
static int explain(exdb_urun *r, const exdb_finding *f, exdb_error *err) {
    const exdb_node *n = f->node ? exdb_graph_find(r->root->graph, f->node) : NULL;
    const exdb_uentry *e = n && n->op == EXDB_OP_CALL_MODULE ? entry_of_call(r, n) : NULL;
    const char *child = e ? exdb_outline_call_name(r, e->fqn, e->call_idx) : NULL;
    if (child && exdb_strmap_get(&r->redirected, child))
        return exdb_errorf(err,
                           "RuntimeError: %s (UnflattenedModule.__init__'s final "
                           "self.graph.lint() of the root graph: _deduplicate_modules "
                           "redirected the root's call %s to the equivalent %s, a call name "
                           "made under another parent)",
                           f->what, child, n->target);
    return exdb_errorf(err,
                       "RuntimeError: %s (UnflattenedModule.__init__'s final self.graph.lint() "
                       "of the root graph: its targets must resolve on the module tree "
                       "_deduplicate_modules and _dispatch_modules left)",
                       f->what);
}

int exdb_rootlint(exdb_urun *r, exdb_error *err) {
    if (!r->root->graph)
        return 0;
    exdb_lint_report rep;
    exdb_lint_report_init(&rep);
    exdb_modgraphs_lint(&rep, r->root, r->root->graph, "");
    int rc = rep.oom ? exdb_errorf(err, "out of memory") : 0;
    for (uint32_t i = 0; rc == 0 && i < rep.n; i++)
        if (rep.items[i].sev == EXDB_SEV_ERROR) /* Graph.lint raises the first */
            rc = explain(r, &rep.items[i], err);
    exdb_lint_report_free(&rep);
    return rc;
}
