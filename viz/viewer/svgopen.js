/* svgopen.js - in an SVG file exdb writes (render ... -o F.svg), run only
 * when a browser opens the file itself (not as an <img>, not in other
 * tools): a browser shows a picture larger than its window from the
 * top-left corner, where dot may have put nothing (resnet18's flat view by
 * module: its first 1400x900 px were empty) or the middle of a tree (the
 * module tree is drawn left to right, its root half way down). This
 * scrolls to where the graph starts: the topmost node when edges run down
 * (more edges end below their start than right of it), else the leftmost, placed at the top (left) third and
 * centred across. It records the labels then on screen 9 px or taller as
 * data-readable and that node's id as data-start on the <svg> (for
 * tests/viz/html_chromium.sh). */
(function(){
'use strict';
var svg=document.documentElement;
if(!svg||svg.localName!=='svg')return;
function start(){
  var nodes=Array.prototype.slice.call(svg.querySelectorAll('g.node')),byName={},dx=0,dy=0;
  if(!nodes.length)return;
  nodes.forEach(function(g){var t=g.querySelector('title');if(t)byName[t.textContent]=g;});
  function mid(g){var r=g.getBoundingClientRect();return [r.left+r.width/2,r.top+r.height/2];}
  svg.querySelectorAll('g.edge').forEach(function(e){var t=e.querySelector('title');if(!t)return;
    var s=t.textContent,i=s.indexOf('->'),a=byName[s.slice(0,i)],b=byName[s.slice(i+2)];
    if(i<0||!a||!b)return;var p=mid(a),q=mid(b);if(q[0]>p[0])dx++;if(q[1]>p[1])dy++;});
  var down=dy>=dx,best=null,bk=0;
  nodes.forEach(function(g){var p=mid(g),k=down?p[1]*1e6+p[0]:p[0]*1e6+p[1];
    if(best===null||k<bk){best=g;bk=k;}});
  var p=mid(best),w=window.innerWidth,h=window.innerHeight;
  window.scrollTo(Math.max(0,window.scrollX+p[0]-(down?w/2:w/3)),
    Math.max(0,window.scrollY+p[1]-(down?h/3:h/2)));
  var n=0;
  svg.querySelectorAll('text').forEach(function(t){var b=t.getBoundingClientRect();
    if(b.height>=9&&b.bottom>0&&b.top<h&&b.right>0&&b.left<w)n++;});
  svg.setAttribute('data-readable',String(n));
  svg.setAttribute('data-start',best.id);
}
if(document.readyState==='loading')window.addEventListener('DOMContentLoaded',start);else start();
})();
