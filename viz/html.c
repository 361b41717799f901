/* html.c - the HTML viewer: one self-contained page (no network) holding
 * the SVG Graphviz made, with pan (drag), zoom (wheel, buttons), search by
 * node name (exact names first, then prefixes, then substrings; Enter
 * cycles through the matches), which zooms to the match, centres it and
 * marks it (the other nodes dimmed), and a details panel that shows a
 * clicked node's or cluster's tooltip (the full FX node).
 *
 * The page also takes its state from the URL fragment, so it can be
 * checked headless (tests/viz/html_chromium.sh): "#search=relu" searches
 * on load, "#select=NAME" shows a node's details, "#click=NAME" clicks the
 * node's shape (the same path as a mouse click), "#zoom=2" zooms in. It
 * records what it did on <body>: data-ready, data-nodes, data-hits,
 * data-selected, data-viewbox / data-home (after / before zoom), data-focus
 * (the centre of the match a search went to),
 * data-errors (uncaught script errors), and with "#measure=1"
 * data-overflow (node labels wider than their shape, as the browser draws
 * the font), which `chromium --headless --dump-dom` prints. */
#include <stdio.h>
#include <string.h>

#include "viz/view.h"
#include "viz/xmlsafe.h"

static const char page_head[] =
    "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
    "<meta name=\"generator\" content=\"exdb\">\n<title>";

static const char page_style[] =
    "</title>\n<style>\n"
    "html,body{margin:0;height:100%;font:13px \"DejaVu Sans\",Arial,sans-serif}\n"
    "body{display:flex;flex-direction:column}\n"
    "#bar{display:flex;gap:6px;align-items:center;padding:6px;border-bottom:1px solid #ccc;"
    "background:#f7f7f7}\n"
    "#bar input{width:18em}\n#status{color:#555}\n"
    "#main{flex:1;display:flex;min-height:0}\n"
    "#view{flex:1;overflow:hidden;cursor:grab;background:#fff}\n"
    "#view.drag{cursor:grabbing}\n#view svg{width:100%;height:100%;display:block}\n"
    "#details{width:30em;overflow:auto;border-left:1px solid #ccc;padding:6px;"
    "background:#fcfcfc}\n"
    "#details pre{white-space:pre-wrap;word-break:break-all;font:12px monospace}\n"
    ".node.hit polygon,.node.hit ellipse,.node.hit path{stroke:#e6550d;stroke-width:3}\n"
    ".node.sel polygon,.node.sel ellipse,.node.sel path{stroke:#3182bd;stroke-width:4}\n"
    ".searching .node:not(.hit),.searching .edge{opacity:.3}\n"
    ".node.cur polygon,.node.cur ellipse,.node.cur path{stroke:#d62728;stroke-width:6}\n"
    ".node,.cluster{cursor:pointer}\n"
    "</style>\n</head>\n<body>\n"
    "<div id=\"bar\"><input id=\"q\" type=\"search\" placeholder=\"search node name (Enter: "
    "next)\" aria-label=\"search\">\n"
    "<button id=\"fit\" title=\"fit to window\">fit</button>"
    "<button id=\"zin\" title=\"zoom in\">+</button>"
    "<button id=\"zout\" title=\"zoom out\">&minus;</button>\n"
    "<span id=\"status\"></span></div>\n"
    "<div id=\"main\"><div id=\"view\">\n";

static const char page_tail[] =
    "</div>\n<div id=\"details\"><b id=\"dname\">click a node</b><pre id=\"dtext\">"
    "Drag to pan, wheel to zoom, type a name to search.</pre></div></div>\n"
    "<script>\n"
    "(function(){\n"
    "'use strict';\n"
    "var body=document.body;\n"
    "window.addEventListener('error',function(e){\n"
    "  body.dataset.errors=(body.dataset.errors||'')+e.message+';';});\n"
    "var view=document.getElementById('view'),svg=view.querySelector('svg');\n"
    "var q=document.getElementById('q'),st=document.getElementById('status');\n"
    "var XL='http://www.w3.org/1999/xlink';\n"
    "svg.removeAttribute('width');svg.removeAttribute('height');\n"
    "var vb0=svg.viewBox.baseVal,home=[vb0.x,vb0.y,vb0.width,vb0.height],vb=home.slice();\n"
    "function apply(){svg.setAttribute('viewBox',vb.join(' '));}\n"
    "function toSvg(cx,cy){var p=svg.createSVGPoint();p.x=cx;p.y=cy;\n"
    "  return p.matrixTransform(svg.getScreenCTM().inverse());}\n"
    "function zoom(f,cx,cy){var r=svg.getBoundingClientRect();\n"
    "  if(cx===undefined){cx=r.left+r.width/2;cy=r.top+r.height/2;}\n"
    "  var p=toSvg(cx,cy);vb[0]=p.x-(p.x-vb[0])*f;vb[1]=p.y-(p.y-vb[1])*f;\n"
    "  vb[2]*=f;vb[3]*=f;apply();}\n"
    "view.addEventListener('wheel',function(e){e.preventDefault();\n"
    "  zoom(e.deltaY>0?1.2:1/1.2,e.clientX,e.clientY);},{passive:false});\n"
    "var drag=null,moved=false;\n"
    "view.addEventListener('mousedown',function(e){drag=toSvg(e.clientX,e.clientY);moved=false;\n"
    "  view.classList.add('drag');});\n"
    "window.addEventListener('mousemove',function(e){if(!drag)return;\n"
    "  var "
    "p=toSvg(e.clientX,e.clientY);vb[0]-=p.x-drag.x;vb[1]-=p.y-drag.y;moved=true;apply();});\n"
    "window.addEventListener('mouseup',function(){drag=null;view.classList.remove('drag');});\n"
    "document.getElementById('fit').onclick=function(){vb=home.slice();apply();};\n"
    "document.getElementById('zin').onclick=function(){zoom(1/1.5);};\n"
    "document.getElementById('zout').onclick=function(){zoom(1.5);};\n"
    "var nodes=Array.prototype.slice.call(svg.querySelectorAll('g.node'));\n"
    "function nameOf(g){var t=g.querySelector('title');return t?t.textContent:g.id;}\n"
    "function tipOf(g){var a=g.querySelector('a');if(!a)return '';\n"
    "  return a.getAttributeNS(XL,'title')||a.getAttribute('xlink:title')||\n"
    "    a.getAttribute('title')||'';}\n"
    "function boxOf(g){var b=g.getBBox(),p=svg.createSVGPoint(),xs=[],ys=[];\n"
    "  var m=svg.getScreenCTM().inverse().multiply(g.getScreenCTM());\n"
    "  [[0,0],[1,0],[0,1],[1,1]].forEach(function(c){p.x=b.x+c[0]*b.width;\n"
    "    p.y=b.y+c[1]*b.height;var t=p.matrixTransform(m);xs.push(t.x);ys.push(t.y);});\n"
    "  var x=Math.min.apply(null,xs),y=Math.min.apply(null,ys);\n"
    "  return {x:x,y:y,w:Math.max.apply(null,xs)-x,h:Math.max.apply(null,ys)-y};}\n"
    "function focus(g){var b=boxOf(g),r=view.getBoundingClientRect();\n"
    "  var a=r.width>0&&r.height>0?r.height/r.width:vb[3]/vb[2];\n"
    "  var w=Math.max(b.w*3,r.width*0.75,b.h*3/a);\n"
    "  w=Math.min(w,Math.max(home[2],home[3]/a,b.w*3));\n"
    "  vb=[b.x+b.w/2-w/2,b.y+b.h/2-w*a/2,w,w*a];apply();\n"
    "  body.dataset.focus=Math.round(b.x+b.w/2)+' '+Math.round(b.y+b.h/2);}\n"
    "function measure(){var n=0;\n"
    "  nodes.forEach(function(g){var s=g.querySelector('polygon,ellipse,path');if(!s)return;\n"
    "    var b=s.getBBox();g.querySelectorAll('text').forEach(function(t){var r=t.getBBox();\n"
    "      if(r.x<b.x-0.5||r.x+r.width>b.x+b.width+0.5)n++;});});\n"
    "  body.dataset.overflow=String(n);}\n"
    "var sel=null;\n"
    "function show(g){if(sel)sel.classList.remove('sel');sel=g;g.classList.add('sel');\n"
    "  document.getElementById('dname').textContent=nameOf(g);\n"
    "  document.getElementById('dtext').textContent=tipOf(g)||'(no details)';\n"
    "  body.dataset.selected=g.id;}\n"
    "svg.addEventListener('click',function(e){if(moved)return;\n"
    "  var g=e.target.closest('g.node,g.cluster');if(!g)return;e.preventDefault();show(g);});\n"
    "var hits=[],cur=-1;\n"
    "function rank(g,s){var n=nameOf(g).toLowerCase(),i=g.id.toLowerCase();\n"
    "  return n===s||i===s?0:n.indexOf(s)===0||i.indexOf(s)===0?1:\n"
    "    n.indexOf(s)>=0||i.indexOf(s)>=0?2:3;}\n"
    "function search(s){hits.forEach(function(g){g.classList.remove('hit','cur');});\n"
    "  hits=[];cur=-1;s=s.trim().toLowerCase();\n"
    "  if(s){hits=nodes.map(function(g,k){return [rank(g,s),k,g];})\n"
    "    .filter(function(e){return e[0]<3;})\n"
    "    .sort(function(x,y){return x[0]-y[0]||x[1]-y[1];}).map(function(e){return e[2];});}\n"
    "  hits.forEach(function(g){g.classList.add('hit');});\n"
    "  svg.classList.toggle('searching',hits.length>0);\n"
    "  body.dataset.hits=String(hits.length);\n"
    "  st.textContent=s?hits.length+' match'+(hits.length==1?'':'es'):nodes.length+' nodes';\n"
    "  if(hits.length)next();}\n"
    "function next(){if(!hits.length)return;if(cur>=0)hits[cur].classList.remove('cur');\n"
    "  cur=(cur+1)%hits.length;hits[cur].classList.add('cur');focus(hits[cur]);\n"
    "  show(hits[cur]);st.textContent=(cur+1)+' of '+hits.length+': '+nameOf(hits[cur]);}\n"
    "q.addEventListener('input',function(){search(q.value);});\n"
    "q.addEventListener('keydown',function(e){if(e.key==='Enter')next();});\n"
    "st.textContent=nodes.length+' node'+(nodes.length==1?'':'s');\n"
    "var h=decodeURIComponent(location.hash.slice(1)).split('&');\n"
    "h.forEach(function(kv){var i=kv.indexOf('=');if(i<0)return;\n"
    "  var k=kv.slice(0,i),v=kv.slice(i+1);\n"
    "  if(k==='search'){q.value=v;search(v);}\n"
    "  if(k==='select'){var g=document.getElementById(v);if(g)show(g);}\n"
    "  if(k==='click'){var c=document.getElementById(v);if(c){\n"
    "    var t=c.querySelector('polygon,ellipse,path,text')||c;\n"
    "    t.dispatchEvent(new MouseEvent('click',{bubbles:true,cancelable:true}));}}\n"
    "  if(k==='zoom'){var f=parseFloat(v);if(f>0)zoom(1/f);}\n"
    "  if(k==='measure')measure();});\n"
    "body.dataset.viewbox=vb.map(function(x){return Math.round(x);}).join(' ');\n"
    "body.dataset.home=home.map(function(x){return Math.round(x);}).join(' ');\n"
    "body.dataset.nodes=String(nodes.length);\n"
    "body.dataset.ready='1';\n"
    "})();\n"
    "</script>\n</body>\n</html>\n";

void vz_html_escape(FILE *f, const char *s) {
    vz_xml_escape(f, s);
}

/* Browsers hint glyphs at the size they are drawn: a picture scaled down
 * to fit a window draws its labels relatively wider than Graphviz measured
 * them, and they overflow their boxes (3 of the example's flat view in
 * the viewer; 33 without the page's font rule). geometricPrecision draws
 * text at its exact outline size at every zoom. */
#define SVG_TEXT_ATTR " text-rendering=\"geometricPrecision\""

int vz_write_svg(FILE *f, const char *svg, size_t len, int whole) {
    const char *start = svg;
    const char *end = svg + len;
    while (start < end && !(end - start >= 5 && memcmp(start, "<svg", 4) == 0 &&
                            (start[4] == ' ' || start[4] == '\n' || start[4] == '>')))
        start++;
    if (start >= end)
        return -1;
    if (whole)
        fwrite(svg, 1, (size_t)(start - svg), f);
    fputs("<svg" SVG_TEXT_ATTR, f);
    fwrite(start + 4, 1, (size_t)(end - start - 4), f);
    return ferror(f) ? -1 : 0;
}

int vz_write_html(FILE *f, const char *svg, size_t len, const char *title) {
    /* Only the <svg> element: the XML prolog and DOCTYPE are not HTML. */
    fputs(page_head, f);
    vz_html_escape(f, title ? title : "exdb");
    fputs(page_style, f);
    if (vz_write_svg(f, svg, len, 0) < 0)
        return -1;
    fputs(page_tail, f);
    return ferror(f) ? -1 : 0;
}
