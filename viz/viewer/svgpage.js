(function(){
'use strict';
var body=document.body;
window.addEventListener('error',function(e){
  body.dataset.errors=(body.dataset.errors||'')+e.message+';';});
var view=document.getElementById('view'),svg=view.querySelector('svg');
var q=document.getElementById('q'),st=document.getElementById('status');
var XL='http://www.w3.org/1999/xlink';
svg.removeAttribute('width');svg.removeAttribute('height');
var vb0=svg.viewBox.baseVal,home=[vb0.x,vb0.y,vb0.width,vb0.height],vb=home.slice();
function apply(){svg.setAttribute('viewBox',vb.join(' '));}
function toSvg(cx,cy){var p=svg.createSVGPoint();p.x=cx;p.y=cy;
  return p.matrixTransform(svg.getScreenCTM().inverse());}
function zoom(f,cx,cy){var r=svg.getBoundingClientRect();
  if(cx===undefined){cx=r.left+r.width/2;cy=r.top+r.height/2;}
  var p=toSvg(cx,cy);vb[0]=p.x-(p.x-vb[0])*f;vb[1]=p.y-(p.y-vb[1])*f;
  vb[2]*=f;vb[3]*=f;apply();}
view.addEventListener('wheel',function(e){e.preventDefault();
  zoom(e.deltaY>0?1.2:1/1.2,e.clientX,e.clientY);},{passive:false});
var drag=null,moved=false;
view.addEventListener('mousedown',function(e){drag=toSvg(e.clientX,e.clientY);moved=false;
  view.classList.add('drag');});
window.addEventListener('mousemove',function(e){if(!drag)return;
  var p=toSvg(e.clientX,e.clientY);vb[0]-=p.x-drag.x;vb[1]-=p.y-drag.y;moved=true;apply();});
window.addEventListener('mouseup',function(){drag=null;view.classList.remove('drag');});
document.getElementById('fit').onclick=function(){vb=home.slice();apply();};
document.getElementById('zin').onclick=function(){zoom(1/1.5);};
document.getElementById('zout').onclick=function(){zoom(1.5);};
var nodes=Array.prototype.slice.call(svg.querySelectorAll('g.node'));
function nameOf(g){var t=g.querySelector('title');return t?t.textContent:g.id;}
function tipOf(g){var a=g.querySelector('a');if(!a)return '';
  return a.getAttributeNS(XL,'title')||a.getAttribute('xlink:title')||
    a.getAttribute('title')||'';}
function boxOf(g){var b=g.getBBox(),p=svg.createSVGPoint(),xs=[],ys=[];
  var m=svg.getScreenCTM().inverse().multiply(g.getScreenCTM());
  [[0,0],[1,0],[0,1],[1,1]].forEach(function(c){p.x=b.x+c[0]*b.width;
    p.y=b.y+c[1]*b.height;var t=p.matrixTransform(m);xs.push(t.x);ys.push(t.y);});
  var x=Math.min.apply(null,xs),y=Math.min.apply(null,ys);
  return {x:x,y:y,w:Math.max.apply(null,xs)-x,h:Math.max.apply(null,ys)-y};}
function focus(g){var b=boxOf(g),r=view.getBoundingClientRect();
  var a=r.width>0&&r.height>0?r.height/r.width:vb[3]/vb[2];
  var w=Math.max(b.w*3,r.width*0.75,b.h*3/a);
  w=Math.min(w,Math.max(home[2],home[3]/a,b.w*3));
  vb=[b.x+b.w/2-w/2,b.y+b.h/2-w*a/2,w,w*a];apply();
  body.dataset.focus=Math.round(b.x+b.w/2)+' '+Math.round(b.y+b.h/2);}
function measure(){var n=0;
  nodes.forEach(function(g){var s=g.querySelector('polygon,ellipse,path');if(!s)return;
    var b=s.getBBox();g.querySelectorAll('text').forEach(function(t){var r=t.getBBox();
      if(r.x<b.x-0.5||r.x+r.width>b.x+b.width+0.5)n++;});});
  body.dataset.overflow=String(n);}
/* the edges between nodes: Graphviz titles an edge "tail->head" (a port
 * after a colon); ins[name] / outs[name] are a node's edges in and out */
var byName={},ins={},outs={};
nodes.forEach(function(g){byName[nameOf(g)]=g;});
function end(s){var g=byName[s];if(g)return s;var c=s.lastIndexOf(':');
  return c>0&&byName[s.slice(0,c)]?s.slice(0,c):null;}
svg.querySelectorAll('g.edge').forEach(function(e){var t=e.querySelector('title');if(!t)return;
  var s=t.textContent,i=s.indexOf('->');if(i<0)return;
  var a=end(s.slice(0,i)),b=end(s.slice(i+2));if(a===null||b===null)return;
  (outs[a]=outs[a]||[]).push([b,e]);(ins[b]=ins[b]||[]).push([a,e]);});
/* a node's inputs in the order its tooltip's args name them ("%x") */
Object.keys(ins).forEach(function(b){var t=tipOf(byName[b]);
  function at(x){var i=t.indexOf('%'+x);return i<0?t.length:i;}
  ins[b].sort(function(x,y){return at(x[0])-at(y[0]);});});
var links=document.getElementById('dlinks');
/* the selected node's edges in (blue) and out (orange) */
function lit(nm){svg.querySelectorAll('.edge.ein,.edge.eout').forEach(function(e){
    e.classList.remove('ein','eout');});
  var n=0;if(nm){(ins[nm]||[]).forEach(function(x){x[1].classList.add('ein');n++;});
    (outs[nm]||[]).forEach(function(x){x[1].classList.add('eout');n++;});}
  body.dataset.lit=String(n);}
function linkList(head,items){if(!items.length)return;var h=document.createElement('div');
  h.className='lh';h.textContent=head;links.appendChild(h);
  items.forEach(function(x){var a=document.createElement('a');a.href='#';a.className='go';
    a.textContent=x[0];a.onclick=function(e){e.preventDefault();goTo(x[0]);};links.appendChild(a);});}
var sel=null;
function show(g){if(sel)sel.classList.remove('sel');sel=g;g.classList.add('sel');
  var nm=nameOf(g);
  document.getElementById('dname').textContent=nm;
  document.getElementById('dtext').textContent=tipOf(g)||'(no details)';
  links.textContent='';
  if(g.classList.contains('node')){
    linkList('from (click: go to it)',ins[nm]||[]);linkList('to (click: go to it)',outs[nm]||[]);
    lit(nm);}else lit(null);
  body.dataset.selected=g.id;}
/* select a node by name (or id) and bring it into view */
function goTo(nm){var g=byName[nm]||document.getElementById(nm);
  if(!g||!g.classList.contains('node'))return;show(g);focus(g);}
svg.addEventListener('click',function(e){if(moved)return;
  var g=e.target.closest('g.node,g.cluster');if(!g)return;e.preventDefault();show(g);});
var hits=[],cur=-1;
function rank(g,s){var n=nameOf(g).toLowerCase(),i=g.id.toLowerCase();
  return n===s||i===s?0:n.indexOf(s)===0||i.indexOf(s)===0?1:
    n.indexOf(s)>=0||i.indexOf(s)>=0?2:3;}
function search(s){hits.forEach(function(g){g.classList.remove('hit','cur');});
  hits=[];cur=-1;s=s.trim().toLowerCase();
  if(s){hits=nodes.map(function(g,k){return [rank(g,s),k,g];})
    .filter(function(e){return e[0]<3;})
    .sort(function(x,y){return x[0]-y[0]||x[1]-y[1];}).map(function(e){return e[2];});}
  hits.forEach(function(g){g.classList.add('hit');});
  svg.classList.toggle('searching',hits.length>0);
  body.dataset.hits=String(hits.length);
  st.textContent=s?hits.length+' match'+(hits.length==1?'':'es'):nodes.length+' nodes';
  if(hits.length)next();}
function next(){if(!hits.length)return;if(cur>=0)hits[cur].classList.remove('cur');
  cur=(cur+1)%hits.length;hits[cur].classList.add('cur');focus(hits[cur]);
  show(hits[cur]);st.textContent=(cur+1)+' of '+hits.length+': '+nameOf(hits[cur]);}
q.addEventListener('input',function(){search(q.value);});
q.addEventListener('keydown',function(e){if(e.key==='Enter')next();});
/* keys (not while typing in the search box): / search, n next match, f fit,
 * up / left the selected node's first input's producer, down / right its
 * first user, Escape clears the selection and the marks */
document.addEventListener('keydown',function(e){if(e.target===q||e.ctrlKey||e.metaKey||e.altKey)return;
  var k=e.key,nm=sel?nameOf(sel):null;
  if(k==='/'){e.preventDefault();q.focus();}
  else if(k==='n')next();
  else if(k==='f'){vb=home.slice();apply();}
  else if(k==='Escape'){if(sel)sel.classList.remove('sel');sel=null;lit(null);links.textContent='';
    q.value='';search('');body.dataset.selected='';}
  else if((k==='ArrowUp'||k==='ArrowLeft')&&nm&&(ins[nm]||[]).length){e.preventDefault();goTo(ins[nm][0][0]);}
  else if((k==='ArrowDown'||k==='ArrowRight')&&nm&&(outs[nm]||[]).length){e.preventDefault();
    goTo(outs[nm][0][0]);}});
st.textContent=nodes.length+' node'+(nodes.length==1?'':'s');
/* where the graph starts (as svgopen.js in an SVG file): the topmost node
 * when more edges end below their start than right of it, else the
 * leftmost (the module tree's root) */
function startNode(){var dx=0,dy=0,best=null,bk=0,c={};
  nodes.forEach(function(g){var b=boxOf(g);c[nameOf(g)]=[b.x+b.w/2,b.y+b.h/2];});
  Object.keys(outs).forEach(function(a){outs[a].forEach(function(x){var p=c[a],q=c[x[0]];
    if(q[0]>p[0])dx++;if(q[1]>p[1])dy++;});});
  nodes.forEach(function(g){var p=c[nameOf(g)],k=dy>=dx?p[1]*1e6+p[0]:p[0]*1e6+p[1];
    if(best===null||k<bk){best=g;bk=k;}});
  return best;}
/* the first screen: the whole picture when its labels are 9 px or taller
 * fitted to the window, else the graph's start at a size where labels read
 * as 12 px, in the upper third of the window (never an empty corner of a
 * wide picture) */
function opening(){var r=view.getBoundingClientRect(),t=svg.querySelector('g.node text,text');
  if(!r.width||!r.height||!t)return;
  var font=parseFloat(t.getAttribute('font-size'))||14,s=Math.min(r.width/home[2],r.height/home[3]);
  if(font*s>=9)return;
  var k=12/font,w=r.width/k,h=r.height/k,b=nodes.length?boxOf(startNode()):null;
  var cx=b?b.x+b.w/2:home[0]+home[2]/2,cy=b?b.y+b.h/2:home[1];
  function clamp(v,lo,len,span){return Math.max(lo,Math.min(v,lo+len-span));}
  vb=[clamp(cx-w/2,home[0],home[2],w),clamp(cy-h/3,home[1],home[3],h),w,h];apply();}
/* the labels a person can read on screen: text 9 px or taller inside the window */
function readable(){var r=view.getBoundingClientRect(),n=0;
  svg.querySelectorAll('text').forEach(function(t){var b=t.getBoundingClientRect();
    if(b.height>=9&&b.bottom>r.top&&b.top<r.bottom&&b.right>r.left&&b.left<r.right)n++;});
  body.dataset.readable=String(n);}
opening();
var h=decodeURIComponent(location.hash.slice(1)).split('&');
h.forEach(function(kv){var i=kv.indexOf('=');if(i<0)return;
  var k=kv.slice(0,i),v=kv.slice(i+1);
  if(k==='search'){q.value=v;search(v);}
  if(k==='select'){var g=document.getElementById(v);if(g)show(g);}
  if(k==='click'){var c=document.getElementById(v);if(c){
    var t=c.querySelector('polygon,ellipse,path,text')||c;
    t.dispatchEvent(new MouseEvent('click',{bubbles:true,cancelable:true}));}}
  if(k==='zoom'){var f=parseFloat(v);if(f>0)zoom(1/f);}
  if(k==='go')goTo(v);
  if(k==='link'){var a=links.querySelectorAll('a.go')[+v];if(a)a.click();}
  if(k==='key')document.dispatchEvent(new KeyboardEvent('keydown',{key:v,bubbles:true}));
  if(k==='measure')measure();});
body.dataset.viewbox=vb.map(function(x){return Math.round(x);}).join(' ');
body.dataset.home=home.map(function(x){return Math.round(x);}).join(' ');
body.dataset.nodes=String(nodes.length);
exdbFirstScreen(body,readable);/* base.js */
})();
