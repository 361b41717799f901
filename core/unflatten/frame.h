/* frame.h - a _ModuleFrame's life in the outliner: the root frame, a frame
 * for a deeper module (_ModuleFrame.__init__), and its end
 * (finalize_outputs, wiring its outputs into the parent). outline.c
 * decides when; these do it. */
#ifndef EXDB_CORE_UNFLATTEN_FRAME_H
#define EXDB_CORE_UNFLATTEN_FRAME_H

#include "core/unflatten/urun.h"

/* The root frame (UnflattenedModule's own graph). 0 or -1. */
int exdb_frame_root(exdb_urun *r, exdb_error *err);
/* A frame for stack entry e under parent (an ENTER event). 0 or -1. */
int exdb_frame_enter(exdb_urun *r, exdb_uframe *parent, const exdb_stack_entry *e, exdb_error *err);
/* Finalizes the innermost frame and pops it (an EXIT event). 0 or -1. */
int exdb_frame_exit(exdb_urun *r, exdb_error *err);

#endif
