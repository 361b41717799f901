'use strict';
/* base.js - the start of the viewer page's script; exdb writes it before
 * modpage.js (viz/html_tree.c). */

/* exdbFirstScreen(body, readable): once the first screen is drawn, sets
 * body's data-paintms (ms from the start of navigation: make bench's
 * first-screen rows), then what the checks read: readable() (the labels on
 * that screen; a second's layout queries on 100k nodes, so not before) and
 * data-ready. Drawn means after the next frame, or after a timer: headless
 * chromium under a virtual-time budget may dump a page before it draws any
 * frame on a busy machine, and a timer in virtual time always runs. */
function exdbFirstScreen(body, readable) {
  var painted = 0;
  function first() {
    if (painted) return;
    painted = 1;
    void body.offsetHeight; /* laid out, when no frame came first */
    body.dataset.paintms = String(Math.round(performance.now()));
    readable();
    body.dataset.ready = '1';
  }
  requestAnimationFrame(function() { setTimeout(first, 0); });
  setTimeout(first, 250);
}
