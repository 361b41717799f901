(function(){
'use strict';
var body=document.body;
window.addEventListener('error',function(e){
  body.dataset.errors=(body.dataset.errors||'')+e.message+';';});
function data(id){return JSON.parse(document.getElementById(id).textContent);}
var M=data('mods'),NM=M.length,kids=[],graphs=[],srcs=null;
for(var i=0;i<NM;i++)kids.push([]);
for(i=1;i<NM;i++)kids[M[i][2]].push(i);
var byFqn={};M.forEach(function(m,k){byFqn[m[0]]=k;});
function graph(m){return graphs[m]||(graphs[m]=data('g'+m));}
function depthOf(m){var d=0;while(m>0){m=M[m][2];d++;}return d;}
var open={0:true},lays=[];
/* render flat|tree|frame|module -o F.html (graph_data.c): the view's clusters
 * and sections are the modules, M[m][7] their label, M[m][8] their fill; a
 * node's n[9] its label lines, n[10] its inputs, n[11] its module stack (in
 * srcs), n[12] its style */
var GEN=body.dataset.view||'';
function modLabel(m){return GEN&&M[m][7]?M[m][7]:'';}
/* render diff -o F.html: the other program's page with the diff (diff_data.c):
 * D.n[name] ["+"] added or ["~", what, A's node]; D.rm[module path] A's removed
 * nodes. Per module: added, changed and removed ops in it and below (dm). */
var D=document.getElementById('diff')?data('diff'):null,dm=[];
if(D){for(i=0;i<NM;i++)dm.push({add:0,chg:0,rm:[]});
  M.forEach(function(mm,m){mm[5].split(' ').forEach(function(nm){var x=D.n[nm];
    if(x)for(var a=m;a>=0;a=a>0?M[a][2]:-1){if(x[0]==='+')dm[a].add++;else dm[a].chg++;}});});
  Object.keys(D.rm).forEach(function(p){var a=byFqn[p],q=p;   /* the nearest module B still has */
    while(a===undefined&&q){q=q.indexOf('.')>0?q.slice(0,q.lastIndexOf('.')):'';a=byFqn[q];}
    if(a===undefined)a=0;
    D.rm[p].forEach(function(nm){for(var b=a;b>=0;b=b>0?M[b][2]:-1)dm[b].rm.push(p+': '+nm);});});}
function diffFill(c){var d=dm[c];if(!d)return M[c][8]||'#fff7bc';
  if(!d.add&&!d.chg&&!d.rm.length)return '#eeeeee';
  if(d.add&&d.add===M[c][4]&&!d.rm.length)return '#c7e9c0';
  return '#fdd0a2';}
function diffLine(c){var d=dm[c];if(!d)return '';
  return !d.add&&!d.chg&&!d.rm.length?'unchanged':[d.add?d.add+' added':'',d.chg?d.chg+' changed':'',
    d.rm.length?d.rm.length+' removed':''].filter(function(x){return x;}).join(', ');}
var view=document.getElementById('view'),svg=view.querySelector('svg');
var q=document.getElementById('q'),st=document.getElementById('status');
var NS='http://www.w3.org/2000/svg';
var ctx=document.createElement('canvas').getContext('2d');
ctx.font='12px "DejaVu Sans", Arial, sans-serif';
var tw={};
function textW(s){var w=tw[s];if(w===undefined)w=tw[s]=ctx.measureText(s).width;return w;}
function esc(s){return String(s).replace(/&/g,'&amp;').replace(/</g,'&lt;').replace(/"/g,'&quot;');}
function shortName(m){var f=M[m][0],p=M[M[m][2]][0];
  return p&&f.indexOf(p+'.')===0?f.slice(p.length+1):f;}
function cls(m){var t=M[m][1];return t?t.slice(t.lastIndexOf('.')+1):'(not called)';}
var LH=15,PAD=8,HEAD=22,INSET=10;
/* parameters, buffers and constants read by one op are folded into its box
 * ("weight f32[64, 3, 7, 7]"), unless "show state" draws them as nodes */
var folds=[],showState=false;
function isState(n){return /^(parameter|buffer|constant|tensor_constant|custom_obj)/.test(n[2]||'');}
function outsOf(m){var g=graph(m);if(g.outs)return g.outs;var o=[];
  g.e.forEach(function(e){o[e[0]]=(o[e[0]]||0)+1;});return g.outs=o;}
function shapeOf(n){var v=n[3]||'',i=v.indexOf(' torch.');return i>0?v.slice(0,i):v;}
function shortVal(v){v=v||'';return v.length>48?v.slice(0,47)+'\u2026':v;}
/* the schema's name of the argument of op u that is node name ("weight") */
function argName(u,name){var a=splitArgs(u[7]);
  for(var i=0;i<a.length;i++)if(a[i].slice(a[i].indexOf('=')+1)==='%'+name)return a[i].slice(0,a[i].indexOf('='));
  return name;}
/* "input=%x, stride=[2, 2]" -> ["input=%x", "stride=[2, 2]"]: commas outside brackets and quotes */
function splitArgs(t){var r=[],d=0,qu='',at=0;t=t||'';
  for(var i=0;i<t.length;i++){var ch=t.charAt(i);
    if(qu){if(ch==='\\')i++;else if(ch===qu)qu='';}
    else if(ch==='"'||ch==="'")qu=ch;else if('[({'.indexOf(ch)>=0)d++;else if('])}'.indexOf(ch)>=0)d--;
    else if(ch===','&&!d){r.push(t.slice(at,i).trim());at=i+1;}}
  if(t.slice(at).trim())r.push(t.slice(at).trim());return r;}
function foldOf(m){if(folds[m])return folds[m];var g=graph(m),f={into:[],lines:[]};
  if(!showState){var outE=[];g.e.forEach(function(e){(outE[e[0]]||(outE[e[0]]=[])).push(e);});
    g.n.forEach(function(n,k){if(n[0]!=='i'&&n[0]!=='o'||!isState(n))return;var es=outE[k];
      if(!es||es.length!==1||g.n[es[0][1]][0]!=='o')return;var u=es[0][1];
      f.into[k]=u;(f.lines[u]||(f.lines[u]=[])).push(argName(g.n[u],n[1])+' '+shapeOf(n));});}
  return folds[m]=f;}
/* the boxes of module m's graph: size and label lines of each node */
function items(m){var g=graph(m),fold=foldOf(m);
  return g.n.map(function(n,k){var it={k:k,t:n[0],lines:[]};
    if(fold.into[k]!==undefined){it.hidden=true;return it;}
    if(n[0]==='m'){it.c=n[1];
      if(open[n[1]]){var L=layout(n[1]);it.sub=L;
        it.lines=[modLabel(n[1])?modLabel(n[1]).split('\n')[0]:M[n[1]][0]+'  '+cls(n[1])];
        it.w=Math.max(L.w+2*INSET,textW(it.lines[0])+40);it.h=L.h+HEAD+INSET;return it;}
      it.lines=(modLabel(n[1])?modLabel(n[1]).split('\n'):[shortName(n[1]),cls(n[1])]).concat([
        M[n[1]][4]+(GEN?' node':' op')+(M[n[1]][4]==1?'':'s')+
        (kids[n[1]].length?', '+kids[n[1]].length+(GEN?' box':' module')+(kids[n[1]].length==1?'':
          GEN?'es':'s'):'')]);
      if(D)it.lines.push(diffLine(n[1]));
    }else if(n[0]==='x'){it.lines=['output'];}
    else if(n[9])it.lines=n[9].split('\n');
    else{it.lines=[n[1]];if(n[2])it.lines.push(n[2]);
      if(n[0]==='i'||!outsOf(m)[k])it.lines.push(shapeOf(n));
      (fold.lines[k]||[]).forEach(function(l){it.lines.push(l);});}
    it.lines=it.lines.filter(function(l){return l!=='';});
    var w=0;it.lines.forEach(function(s){w=Math.max(w,textW(s));});
    it.w=w+2*PAD+(n[0]==='m'?16:0);it.h=it.lines.length*LH+PAD;return it;});}
/* a layered drawing of a graph (longest path layers, barycentre order,
 * balanced positions): laid out once per module and open state */
function layout(m){if(lays[m])return lays[m];
  var g=graph(m),all=items(m),N=[],map=[],E=[],i,j;
  all.forEach(function(it){if(it.hidden)return;map[it.k]=N.length;N.push(it);});
  var n=N.length,ins=[],outs=[];for(i=0;i<n;i++){ins.push([]);outs.push([]);}
  g.e.forEach(function(e){var f=map[e[0]],t=map[e[1]];
    if(f!==undefined&&t!==undefined)E.push({f:f,t:t,v:e[2],l:e[3],c:e[4],s:e[5]});});
  E.forEach(function(e){outs[e.f].push(e);ins[e.t].push(e);});
  if(GEN==='tree')return lays[m]=treeLayout(m,N,E,ins,outs);
  /* topological order (Kahn; a cycle is broken at its first node) */
  var indeg=ins.map(function(a){return a.length;}),pos=new Array(n),order=[],ready=[],done=0,next=0;
  for(i=n-1;i>=0;i--)if(!indeg[i])ready.push(i);
  var seen=new Array(n);
  while(done<n){if(!ready.length){while(seen[next])next++;ready.push(next);}
    var v=ready.pop();if(seen[v])continue;seen[v]=1;pos[v]=done++;order.push(v);
    for(j=outs[v].length-1;j>=0;j--){var t=outs[v][j].t;if(!seen[t]&&--indeg[t]===0)ready.push(t);}}
  var layer=new Array(n).fill(0);
  order.forEach(function(v){ins[v].forEach(function(e){if(pos[e.f]<pos[v])
    layer[v]=Math.max(layer[v],layer[e.f]+1);});});
  /* sources (inputs) sit just above their first user */
  order.slice().reverse().forEach(function(v){if(ins[v].length||!outs[v].length)return;
    var l=Infinity;outs[v].forEach(function(e){l=Math.min(l,layer[e.t]);});
    if(l!==Infinity&&l>0)layer[v]=l-1;});
  /* nodes with no edge at all (state nothing uses) in rows of their own at the bottom (boxes stay) */
  var lone=[],deep=0;
  for(i=0;i<n;i++){if(ins[i].length||outs[i].length||N[i].t==='m')deep=Math.max(deep,layer[i]+1);
    else lone.push(i);}
  if(lone.length<n)lone.forEach(function(v,k){layer[v]=deep+Math.floor(k/8);});   /* 8 a row */
  /* far edges: a dashed copy of the end with more edges next to the other */
  var nodes=N.slice(),FAR=6;
  var E2=[];E.forEach(function(e){var s=layer[e.t]-layer[e.f];
    if(s<=FAR||pos[e.f]>pos[e.t]){E2.push(e);return;}
    var fanout=outs[e.f].length>=ins[e.t].length,o=nodes[fanout?e.f:e.t];
    var c={k:nodes.length,t:'c',lines:[o.lines[0]],of:o,w:textW(o.lines[0])+2*PAD,h:LH+PAD};
    nodes.push(c);layer.push(fanout?layer[e.t]-1:layer[e.f]+1);
    E2.push(fanout?{f:c.k,t:e.t,v:e.v,l:e.l,c:e.c,s:e.s}:{f:e.f,t:c.k,v:e.v,l:e.l,c:e.c,s:e.s});});
  /* long edges get a point per layer they cross */
  var E3=[];E2.forEach(function(e){var a=layer[e.f],b=layer[e.t];
    if(b<=a+1||pos[e.f]>pos[e.t]&&e.f<n&&e.t<n){e.pts=[e.f,e.t];E3.push(e);return;}
    var p=[e.f];for(var l=a+1;l<b;l++){var d={k:nodes.length,t:'d',w:0,h:0,lines:[]};
      nodes.push(d);layer.push(l);p.push(d.k);}
    p.push(e.t);e.pts=p;E3.push(e);});
  var nn=nodes.length,up=[],down=[];for(i=0;i<nn;i++){up.push([]);down.push([]);}
  E3.forEach(function(e){for(var k=0;k+1<e.pts.length;k++){var a=e.pts[k],b=e.pts[k+1];
    if(layer[a]<layer[b]){down[a].push(b);up[b].push(a);}}});
  var L=[];for(i=0;i<nn;i++){(L[layer[i]]||(L[layer[i]]=[])).push(i);}
  for(i=0;i<L.length;i++)if(!L[i])L[i]=[];
  var x=new Array(nn),rank=new Array(nn);
  L.forEach(function(row){row.forEach(function(v,k){rank[v]=k;});});
  function bary(row,nb){var key=row.map(function(v){var a=nb[v];if(!a.length)return rank[v];
      var s=0;a.forEach(function(u){s+=rank[u];});return s/a.length;});
    var idx=row.map(function(v,k){return k;});
    idx.sort(function(p,q2){return key[p]-key[q2]||p-q2;});
    var r=idx.map(function(k){return row[k];});r.forEach(function(v,k){rank[v]=k;});return r;}
  var sweeps=nn>4000?2:6;
  for(var s=0;s<sweeps;s++){
    if(s%2===0)for(i=1;i<L.length;i++)L[i]=bary(L[i],up);
    else for(i=L.length-2;i>=0;i--)L[i]=bary(L[i],down);}
  var GAP=16;
  function gap(a,b){return (nodes[a].w+nodes[b].w)/2+(nodes[a].t==='d'||nodes[b].t==='d'?6:GAP);}
  L.forEach(function(row){var at=0;row.forEach(function(v,k){
    if(k)at+=gap(row[k-1],v);x[v]=at;});});
  function place(row,nb){if(!row.length)return;
    var want=row.map(function(v){var a=nb[v];if(!a.length)return x[v];
      var t=0;a.forEach(function(u){t+=x[u];});return t/a.length;});
    var A=[],B=[],k;
    for(k=0;k<row.length;k++)A[k]=k?Math.max(want[k],A[k-1]+gap(row[k-1],row[k])):want[k];
    for(k=row.length-1;k>=0;k--)B[k]=k<row.length-1?Math.min(want[k],B[k+1]-gap(row[k],row[k+1])):want[k];
    for(k=0;k<row.length;k++)x[row[k]]=(A[k]+B[k])/2;}
  var both=[];for(i=0;i<nn;i++)both.push(up[i].concat(down[i]));
  for(s=0;s<4;s++){for(i=1;i<L.length;i++)place(L[i],s<2?up:both);
    for(i=L.length-2;i>=0;i--)place(L[i],s<2?down:both);}
  var y=new Array(nn),top=0,RS=34;
  L.forEach(function(row){var h=0;row.forEach(function(v){h=Math.max(h,nodes[v].h);});
    row.forEach(function(v){y[v]=top+nodes[v].h/2;});top+=h+RS;});
  var minx=Infinity,maxx=-Infinity;
  for(i=0;i<nn;i++){minx=Math.min(minx,x[i]-nodes[i].w/2);maxx=Math.max(maxx,x[i]+nodes[i].w/2);}
  if(!nn){minx=0;maxx=60;}
  for(i=0;i<nn;i++){nodes[i].x=x[i]-minx+4;nodes[i].y=y[i]+4;}
  /* where the top row is (within a lone open box on it: its own top row) */
  var tx=0,t0=L[0]||[],one=t0.length===1?nodes[t0[0]]:null;t0.forEach(function(v){tx+=nodes[v].x;});
  var lay={m:m,w:maxx-minx+8,h:Math.max(top-RS,20)+8,nodes:nodes,edges:E3,n:n,
    topx:one&&one.sub?one.x-one.w/2+INSET+one.sub.topx:t0.length?tx/t0.length:(maxx-minx)/2};
  return lays[m]=lay;}
/* render tree: an indented tree, as a file tree draws one (Model Explorer's
 * layer list): each node on its own row, its children below it one step
 * to the right, joined to it by a short elbow; a node with no single
 * parent (the output, a section box) at the left */
function treeLayout(m,N,E,ins,outs){var n=N.length,par=new Array(n),dep=new Array(n),seen=new Array(n),
    order=[],i,IND=28,VG=6;
  /* a node's parent: its one in-edge that is not a "same module" one (dashed) */
  var pe=ins.map(function(a){return a.filter(function(e){return !/dashed/.test(e.s||'');});});
  for(i=0;i<n;i++)par[i]=pe[i].length===1&&N[i].t!=='m'&&N[i].t!=='x'&&pe[i][0].f!==i?pe[i][0].f:-1;
  function walk(r,d){var stack=[[r,d]];while(stack.length){var a=stack.pop(),v=a[0];
      if(seen[v])continue;seen[v]=1;dep[v]=a[1];order.push(v);
      for(var j=outs[v].length-1;j>=0;j--){var t=outs[v][j].t;if(par[t]===v&&!seen[t])stack.push([t,a[1]+1]);}}}
  for(i=0;i<n;i++)if(par[i]<0&&!pe[i].length)walk(i,0);
  for(i=0;i<n;i++)if(!seen[i])walk(i,N[i].t==='m'||!pe[i].length?0:1);
  var top=4,w=60;order.forEach(function(v){var it=N[v];it.x=4+dep[v]*IND+it.w/2;it.y=top+it.h/2;
    top+=it.h+VG;w=Math.max(w,it.x+it.w/2+4);});
  E.forEach(function(e){e.pts=[e.f,e.t];});
  return {m:m,w:w,h:Math.max(top,24),nodes:N,edges:E,n:n,tree:true,topx:n?N[order[0]].x:w/2};}
function nodeSvg(m,it,out){var x=it.x-it.w/2,y=it.y-it.h/2,k;
  if(it.t==='d')return;
  if(it.t==='m'){var c=it.c,o=!!it.sub;
    out.push('<g class="mod'+(o?' open':'')+'" data-c="'+c+'" id="m:'+esc(M[c][0])+'">');
    out.push('<title>'+esc(M[c][0]+': '+(M[c][1]||'container (never called itself)')+
      (o?' (click the title to close)':' (click to open)'))+'</title>');
    if(o){out.push('<rect class="box" x="'+x+'" y="'+y+'" width="'+it.w+'" height="'+it.h+
        '" rx="4" fill="'+fillOf(c)+'"/><rect class="head" x="'+(x+1)+'" y="'+(y+1)+'" width="'+
        (it.w-2)+'" height="'+(HEAD-2)+'"/>'+
        '<text class="tw" x="'+(x+6)+'" y="'+(y+15)+'">\u2212</text>'+
        '<text x="'+(x+20)+'" y="'+(y+15)+'">'+esc(it.lines[0])+'</text>');
      out.push('<g transform="translate('+(x+INSET)+','+(y+HEAD)+')">');
      drawInto(it.sub,out);out.push('</g></g>');return;}
    out.push('<rect class="box" x="'+x+'" y="'+y+'" width="'+it.w+'" height="'+it.h+
      '" rx="6" fill="'+diffFill(c)+'"/><text class="tw" x="'+(x+5)+'" y="'+(y+PAD/2+12)+'">+</text>');
    for(k=0;k<it.lines.length;k++)out.push('<text x="'+(x+PAD+16)+'" y="'+(y+PAD/2+12+k*LH)+'">'+
      esc(it.lines[k])+'</text>');
    out.push('</g>');return;}
  var g=graph(m).n[it.t==='c'?it.of.k:it.k],name=it.t==='x'?'output':g[1];
  var kind=it.t==='c'?'n cp':it.t==='i'?'n in':'n';
  if(g[12]&&it.t==='o')kind+=(/bold/.test(g[12])?' bold':'')+(/dashed/.test(g[12])?' dash':'');
  out.push('<g class="'+kind+'" data-m="'+m+'" data-k="'+(it.t==='c'?it.of.k:it.k)+'"'+
    (it.t==='o'?' id="'+esc(name)+'"':'')+'><title>'+esc(it.t==='c'?name+' (a copy: the edge is long)':
    it.t==='i'?name+' (made outside '+M[m][0]+')':name)+'</title>');
  var fill=it.t==='x'?'#9ecae1':it.t==='i'?'#f7fbff':it.t==='c'?'#ffffff':g[6];
  if(D&&it.t==='o'&&D.n[g[1]])fill=D.n[g[1]][0]==='+'?'#a1d99b':'#fdae6b';
  out.push('<rect x="'+x+'" y="'+y+'" width="'+it.w+'" height="'+it.h+'" rx="'+
    (it.t==='i'?it.h/2:3)+'" fill="'+fill+'"/>');
  for(k=0;k<it.lines.length;k++)out.push('<text x="'+it.x+'" y="'+(y+PAD/2+12+k*LH)+
    '" text-anchor="middle">'+esc(it.lines[k])+'</text>');
  out.push('</g>');}
function fillOf(c){if(M[c][8])return M[c][8];
  var f=['#f7fbff','#eef5fb','#e6f0f8','#dde9f5','#d5e3f2'];return f[depthOf(c)%5];}
function edgeSvg(L,e,out){var P=e.pts.map(function(k){return L.nodes[k];}),d='',k;
  var a=P[0],b=P[P.length-1],sx=a.x-a.w/2+12;
  if(L.tree){   /* an indented tree's elbow: along the parent's spine, then to the child's side */
    var ex=sx<b.x-b.w/2?b.x-b.w/2:b.x+b.w/2;
    out.push('<path class="e" data-m="'+L.m+'" data-f="'+a.k+'" data-t="'+b.k+'" d="M'+sx.toFixed(1)+','+
      (b.y>a.y?a.y+a.h/2:a.y-a.h/2).toFixed(1)+'V'+b.y.toFixed(1)+'H'+ex.toFixed(1)+
      '"'+edgeEnd(e));return;}
  var pts=[[a.x,a.y+a.h/2]];for(k=1;k+1<P.length;k++)pts.push([P[k].x,P[k].y]);
  pts.push([b.x,b.y-b.h/2]);
  d='M'+pts[0][0].toFixed(1)+','+pts[0][1].toFixed(1);
  for(k=1;k<pts.length;k++){var p=pts[k-1],q2=pts[k],h=(q2[1]-p[1])/2;
    if(h<10&&h>-10)h=h<0?-10:10;
    d+='C'+p[0].toFixed(1)+','+(p[1]+h).toFixed(1)+' '+q2[0].toFixed(1)+','+(q2[1]-h).toFixed(1)+
      ' '+q2[0].toFixed(1)+','+q2[1].toFixed(1);}
  out.push('<path class="e" data-m="'+L.m+'" data-f="'+origK(a)+'" data-t="'+origK(b)+
    '" d="'+d+'"'+edgeEnd(e));}
/* an edge's arrow, colour, dashes and title */
function edgeEnd(e){return ' marker-end="url(#arr)"'+(e.c?' style="stroke:'+esc(e.c)+'"':'')+
    (/dashed/.test(e.s||'')?' stroke-dasharray="5 3"':'')+'><title>'+esc(e.l||e.v+' values')+'</title></path>';}
function origK(it){return it.t==='c'?it.of.k:it.k;}
/* the value a node hands out, written once under it, beside its out edges */
function edgeLabels(L,out){var done={};L.edges.forEach(function(e){var a=L.nodes[e.pts[0]];
    if(L.tree){var b=L.nodes[e.pts[1]],t=e.v>1?e.v+' values':shortVal(e.l);   /* right of the child */
      if(t)out.push('<text class="el" x="'+(b.x+b.w/2+6).toFixed(1)+'" y="'+(b.y+4).toFixed(1)+'">'+
        esc(t)+'</text>');return;}
    if(done[a.k+a.t]||a.t==='d'||a.t==='m'&&!e.l)return;done[a.k+a.t]=1;
    var s=e.v>1?e.v+' values':shortVal(e.l);if(!s)return;
    out.push('<text class="el" x="'+(a.x+5).toFixed(1)+'" y="'+(a.y+a.h/2+11).toFixed(1)+'">'+
      esc(s)+'</text>');});}
function drawInto(L,out){L.edges.forEach(function(e){edgeSvg(L,e,out);});edgeLabels(L,out);
  L.nodes.forEach(function(it){nodeSvg(L.m,it,out);});}
var vb=[0,0,100,100],home;
function apply(){svg.setAttribute('viewBox',vb.map(function(v){return v.toFixed(1);}).join(' '));}
function render(){var L=layout(0),out=[];
  out.push('<defs><marker id="arr" viewBox="0 0 10 10" refX="10" refY="5" markerWidth="7" '+
    'markerHeight="7" markerUnits="userSpaceOnUse" orient="auto">'+
    '<path d="M0,0L10,5L0,10z" fill="#555"/></marker></defs>');
  drawInto(L,out);svg.innerHTML=out.join('');
  home=[0,0,L.w,L.h];
  body.dataset.open=Object.keys(open).filter(function(k){return open[k]&&k!=='0';})
    .map(function(k){return M[k][0];}).sort().join(',');
  body.dataset.shown=String(svg.querySelectorAll('g.n,g.mod').length);
  st.textContent=GEN?M[0][4]+' nodes, '+(NM-1)+' boxes; '+(Object.keys(open).length-1)+' open':
    NM-1+' modules, '+M[0][4]+' ops; '+
    (Object.keys(open).length-1)+' open';}
/* the left and right ends of the boxes drawn above y (root coordinates), open boxes' insides too */
function span(L,ox,oy,y,acc){L.nodes.forEach(function(it){var t=oy+it.y-it.h/2;if(it.t==='d'||t>y)return;
    acc.lo=Math.min(acc.lo,ox+it.x-it.w/2);acc.hi=Math.max(acc.hi,ox+it.x+it.w/2);
    if(it.sub)span(it.sub,ox+it.x-it.w/2+INSET,t+HEAD,y,acc);});return acc;}
function fit(){var r=view.getBoundingClientRect(),W=r.width||1000,H=r.height||700;
  var s=Math.max(home[2]/W,home[3]/H,1),L=layout(0);
  /* a picture that fits only with its labels under 9 px opens at its top, readable */
  if(s>1.3)s=Math.max(Math.min(home[2]/W,1.3),1);
  vb=[home[0]-4,home[1]-4,W*s,H*s];
  if(home[2]+8<W*s){if(!L.tree)vb[0]=home[2]/2-W*s/2;apply();return;}
  /* wider than the window: the boxes of the first screen whole (zoomed out while
   * labels stay 9 px or taller, else from their left end), the top row (a
   * tree's root, the inputs) as near the middle as that lets */
  for(var k=0,a;k<3;k++){a=span(L,0,0,vb[1]+H*s,{lo:Infinity,hi:-Infinity});
    if(a.hi-a.lo+8<=W*s||(a.hi-a.lo+8)/W>1.3)break;s=(a.hi-a.lo+8)/W;vb[2]=W*s;vb[3]=H*s;}
  if(a.lo===Infinity)a={lo:home[0],hi:home[2]};
  vb[0]=Math.min(a.lo-4,Math.max(L.topx-W*s/2,a.hi+4-W*s));apply();}
/* where box a of module c is drawn, in the root's coordinates */
function absBox(c){var p=[],m=c;while(m>0){p.unshift(m);m=M[m][2];}
  var L=layout(0),ox=0,oy=0,it=null;
  for(var i=0;i<p.length;i++){it=null;L.nodes.forEach(function(n){if(n.t==='m'&&n.c===p[i])it=n;});
    if(!it)return null;if(i<p.length-1){ox+=it.x-it.w/2+INSET;oy+=it.y-it.h/2+HEAD;L=it.sub;if(!L)return null;}}
  return {x:ox+it.x-it.w/2,y:oy+it.y-it.h/2,w:it.w,h:it.h};}
function dirty(c){for(var m=c;m>=0;m=m>0?M[m][2]:-1)lays[m]=null;}
/* opens or closes module c where it is: the box stays where it was on screen */
function toggle(c,want){if(c<=0)return;var o=!!open[c];if(want!==undefined&&want===o)return;
  var t0=performance.now(),a=absBox(c);if(o)delete open[c];else open[c]=true;
  dirty(c);render();var b=absBox(c);if(a&&b){vb[0]+=b.x-a.x;vb[1]+=b.y-a.y;apply();}
  showMod(c);body.dataset.actms=String(Math.round(performance.now()-t0));}
function setOpen(c){var changed=false;for(var m=c;m>0;m=M[m][2])if(!open[m]){open[m]=true;dirty(m);changed=true;}
  return changed;}
function toSvg(cx,cy){var p=svg.createSVGPoint();p.x=cx;p.y=cy;
  return p.matrixTransform(svg.getScreenCTM().inverse());}
function zoom(f,cx,cy){var r=svg.getBoundingClientRect();
  if(cx===undefined){cx=r.left+r.width/2;cy=r.top+r.height/2;}
  var p=toSvg(cx,cy);vb[0]=p.x-(p.x-vb[0])*f;vb[1]=p.y-(p.y-vb[1])*f;vb[2]*=f;vb[3]*=f;apply();}
view.addEventListener('wheel',function(e){e.preventDefault();
  zoom(e.deltaY>0?1.2:1/1.2,e.clientX,e.clientY);},{passive:false});
var drag=null,moved=false;
view.addEventListener('mousedown',function(e){drag=toSvg(e.clientX,e.clientY);moved=false;
  view.classList.add('drag');});
window.addEventListener('mousemove',function(e){if(!drag)return;var p=toSvg(e.clientX,e.clientY);
  if(Math.abs(p.x-drag.x)+Math.abs(p.y-drag.y)>0.5)moved=true;
  vb[0]-=p.x-drag.x;vb[1]-=p.y-drag.y;apply();});
window.addEventListener('mouseup',function(){drag=null;view.classList.remove('drag');});
document.getElementById('fit').onclick=fit;
document.getElementById('zin').onclick=function(){zoom(1/1.5);};
document.getElementById('zout').onclick=function(){zoom(1.5);};
document.getElementById('closeall').onclick=collapseAll;
document.getElementById('openall').onclick=expandAll;
document.getElementById('state').onclick=function(){showState=!showState;folds=[];lays=[];
  this.textContent=showState?'fold state':'show state';render();};
function collapseAll(){open={0:true};lays=[];render();fit();}
/* opens every module, level by level, while the drawing stays under
 * BUDGET boxes (a 100k-node program would take minutes to draw whole) */
var BUDGET=4000;
function expandAll(){var t0=performance.now(),shown=graph(0).n.length,level=[0],opened=0;
  while(level.length){var nextLevel=[],cost=0;
    level.forEach(function(m){kids[m].forEach(function(c){cost+=M[c][3]+kids[c].length+2;nextLevel.push(c);});});
    if(!nextLevel.length||shown+cost>BUDGET&&opened)break;
    nextLevel.forEach(function(c){if(!open[c]){open[c]=true;opened++;}});shown+=cost;level=nextLevel;}
  lays=[];render();fit();
  var closed=NM-1-(Object.keys(open).length-1);
  st.textContent=(Object.keys(open).length-1)+(GEN?' boxes':' modules')+' open'+(closed?', '+closed+
    ' left closed (over '+BUDGET+' boxes): click one to open it':'');
  body.dataset.actms=String(Math.round(performance.now()-t0));}
var dn=document.getElementById('dname'),dt=document.getElementById('dtext');
function modPath(m){var p=[];for(;m>0;m=M[m][2])p.unshift(M[m][0]+'  '+(M[m][1]||'(container)'));
  return p.length?'\nmodule stack:\n  '+p.join('\n  '):'';}
/* why a module is named fqn@N: the N-th extra call of one module, where it was called */
function whyCall(c){var f=M[c][0],at=f.match(/^(.*)@(\d+)$/);if(!at)return '';
  var n=+at[2],src='';if(!srcs)srcs=data('srcs');
  graph(c).n.some(function(x){if(x[0]==='o'&&srcs[x[5]]){src=srcs[x[5]];return true;}return false;});
  return '\n\nwhy "@'+n+'": this is call '+(n+1)+' of the module '+at[1]+': the same module object '+
    'called again in one forward (nn_module_stack names its extra calls '+at[1]+'@1, @2, ...). '+
    'unflatten gives each call its own frame and graph, then folds calls whose graphs are equal '+
    'back into one module called twice (DEDUP); in exdb: unflatten run, info events dedup, explain K.'+
    (src?'\nwhere this call ran:'+src:'');}
function showMod(c){dn.textContent=M[c][0];links.textContent='';lit();
  if(GEN){dt.textContent=(modLabel(c)||M[c][0])+'\n'+M[c][3]+' own node'+(M[c][3]==1?'':'s')+', '+M[c][4]+
      ' in all, '+kids[c].length+' box'+(kids[c].length==1?'':'es')+'\n'+
      (open[c]?'open: click its title to close':'closed: click to open');body.dataset.selected=M[c][0];return;}
  dt.textContent=(M[c][1]||'container (never called itself)')+'\n'+M[c][3]+' own op'+(M[c][3]==1?'':'s')+', '+
    M[c][4]+' in all, '+kids[c].length+' submodule call'+(kids[c].length==1?'':'s')+
    '\n'+(open[c]?'open: click its title to close':'closed: click to open')+
    '\nrender module '+M[c][0]+' draws its unflattened graph'+whyCall(c)+
    (D?'\n\ndiff: '+diffLine(c)+(dm[c].rm.length?'\nremoved (in A):\n  '+dm[c].rm.slice(0,50).join('\n  '):''):'');
  body.dataset.selected=M[c][0];}
function showNode(m,k){var n=graph(m).n[k];if(!srcs)srcs=data('srcs');links.textContent='';
  if(n[0]==='x'){dn.textContent='output';dt.textContent='what '+(M[m][0]||'the program')+' hands out';return;}
  dn.textContent=n[1];
  var named=n[7]?'\narguments:\n  '+splitArgs(n[7]).join('\n  '):'';
  dt.textContent=(n[2]?n[2]+'\n':'')+(n[3]?'value: '+n[3]+'\n':'')+named.replace(/^\n/,'')+
    (n[0]==='i'?'\n(made outside '+(M[m][0]||'the root')+')':n[11]?'\nmodule stack:\n  '+
      srcs[n[11]].split('\n').join('\n  '):GEN?'':modPath(m))+(srcs[n[5]]||'')+'\n\n'+n[4];
  var cl=codeOf(n[1]);if(cl)dt.textContent+='\nprint code:\n  '+cl;
  var x=D&&n[0]==='o'?D.n[n[1]]:null;
  if(x)dt.textContent=(x[0]==='+'?'added: not in A\n':'changed ('+x[1]+'); in A:\n'+x[2]+'\n')+'\n'+dt.textContent;
  var ins=inputsOf(n);
  linkList('inputs (click: go to the producer)',ins.map(function(a){return [a,a];}));
  var us=n[8]?n[8].split(' '):[],more=us.length&&us[us.length-1].charAt(0)==='+'?us.pop():'';
  linkList('users (click: go to the user)'+(more?', the first '+us.length+' ('+more.slice(1)+' more)':''),
    us.map(function(a){return [a,a];}));
  if(n[0]==='i'&&owner(n[1])!==undefined)linkList('made in '+(M[owner(n[1])][0]||'the root'),[[n[1],n[1]]]);
  body.dataset.selected=n[1];lit(m,k);}
/* a node's line of `print code` (html_tree.c's "code" table, parsed when first asked) */
var codes=null;
function codeOf(name){if(!codes)codes=document.getElementById('code')?data('code'):{};
  return Object.prototype.hasOwnProperty.call(codes,name)?codes[name]:'';}
/* the nodes n reads, in argument order: the %names of its FX text's args */
function inputsOf(n){
  if(n.length>10)return n[10]?n[10].split(' ').filter(function(x){return x.charAt(0)!=='+';}):[];
  var t=n[4]||'',i=t.indexOf('](args = '),seen={},r=[];if(i<0)return r;
  (t.slice(i).match(/%[A-Za-z_][\w.]*/g)||[]).forEach(function(x){x=x.slice(1);
    if(!seen[x]){seen[x]=1;r.push(x);}});return r;}
var links=document.getElementById('dlinks');
/* a titled list of links in the panel: [label, node name or -module index] */
function linkList(title,items){if(!items.length)return;var h=document.createElement('div');
  h.className='lh';h.textContent=title;links.appendChild(h);
  items.forEach(function(a){var e=document.createElement('a');e.href='#';e.className='go';
    e.textContent=a[0];e.dataset.go=a[1];links.appendChild(e);});}
links.addEventListener('click',function(e){var a=e.target.closest('a.go');if(!a)return;
  e.preventDefault();goTo(a.dataset.go);});
/* the module whose own op is named name (lazily indexed) */
var ownerOf=null;
function owner(name){if(!ownerOf){ownerOf={};M.forEach(function(mm,m){
    mm[5].split(' ').forEach(function(nm){if(nm)ownerOf[nm]=m;});});}
  return ownerOf[name];}
/* opens the way to node name (or module -c), draws it, centres and selects it */
function goTo(name){var t0=performance.now();
  if(name.charAt(0)==='-'){var c=-name;if(setOpen(M[c][2]))render();
    var gm=document.getElementById('m:'+M[c][0]);if(gm){focus(gm);mark(gm);}showMod(c);return;}
  var m=owner(name);
  if(m===undefined&&sel){var m0=+sel.dataset.m,gi=graph(m0).n;   /* an input of the selected node's module */
    for(var i=0;i<gi.length;i++)if(gi[i][1]===name){showNode(m0,i);return;}}
  if(m===undefined){st.textContent=name+': not an op of any module';return;}
  if(setOpen(m))render();var g=document.getElementById(name);
  var gn=graph(m).n,k=0;for(k=0;k<gn.length;k++)if(gn[k][1]===name&&gn[k][0]==='o')break;
  if(g){focus(g);mark(g);}showNode(m,k);st.textContent=name+' in '+(M[m][0]||'the root');
  body.dataset.actms=String(Math.round(performance.now()-t0));}
/* the own node named name of module m's graph */
function ownNode(m,name){var gn=graph(m).n;for(var k=0;k<gn.length;k++)if(gn[k][0]==='o'&&gn[k][1]===name)return gn[k];
  return null;}
/* the selected node's input edges in one colour, its output edges in another */
function lit(m,k){svg.querySelectorAll('.e.ein,.e.eout').forEach(function(e){e.classList.remove('ein','eout');});
  if(m===undefined)return;var n=0;
  svg.querySelectorAll('path.e[data-m="'+m+'"][data-t="'+k+'"]').forEach(function(e){e.classList.add('ein');n++;});
  svg.querySelectorAll('path.e[data-m="'+m+'"][data-f="'+k+'"]').forEach(function(e){e.classList.add('eout');n++;});
  body.dataset.lit=String(n);}
var sel=null;
function mark(g){if(sel)sel.classList.remove('sel');sel=g;if(g)g.classList.add('sel');}
svg.addEventListener('click',function(e){if(moved)return;
  var g=e.target.closest('g.n,g.mod');if(!g)return;e.preventDefault();
  if(g.classList.contains('mod')){var c=+g.dataset.c;
    if(g.classList.contains('open')&&e.target.parentNode!==g){return;}
    toggle(c);return;}
  mark(g);showNode(+g.dataset.m,+g.dataset.k);});
/* search: module paths, node names, op targets ("convolution") and, with
 * an "=" in the query, the named arguments ("stride=[2, 2]"): exact first,
 * then prefixes, then substrings; the hits listed in the panel by module */
var hits=[],cur=-1;
function rank(n,s){return n===s?0:n.indexOf(s)===0?1:n.indexOf(s)>=0?2:3;}
/* a run box's paths (its target: comma-separated, "+N" the paths not kept)
 * that s matches: [best rank, first path of that rank, how many match] */
function runHit(t,s){var b=null;t.split(',').forEach(function(p){if(p[0]==='+')return;
    var r=rank(p.toLowerCase(),s);if(r>2)return;if(!b||r<b[0])b=[r,p,b?b[2]:0];b[2]++;});return b;}
/* a run box's hit as listed: its label's first line and the path found,
 * "m0 .. m19 (blk.m2)", "m35 .. m79 (m40, +9 more)" */
function runLabel(m,nm,b){var n=graph(m).n,l=nm;
  for(var k=0;k<n.length;k++)if(n[k][1]===nm){l=(n[k][9]||nm).split('\n')[0];break;}
  return l+' ('+b[1]+(b[2]>1?', +'+(b[2]-1)+' more':'')+')';}
function search(s){hits=[];cur=-1;s=s.trim().toLowerCase();clearMarks();
  if(s){for(var m=0;m<NM;m++){var f=M[m][0].toLowerCase(),r=m?rank(f,s):3;
      if(r<3)hits.push([r,m,-1,M[m][0]]);
      var names=M[m][5].split(' '),tg=M[m][6].split(' '),byName=M[m][5].toLowerCase().indexOf(s)>=0;
      if(byName||M[m][6].toLowerCase().indexOf(s)>=0)names.forEach(function(nm,i){
        var r2=byName?rank(nm.toLowerCase(),s):3,t=tg[i]||'',b;
        if(r2<3)hits.push([r2,m,nm,nm]);
        else if(t.indexOf(',')>0){if((b=runHit(t,s)))hits.push([b[0],m,nm,runLabel(m,nm,b)]);}
        else if(!byName&&nm&&(r2=rank(t.toLowerCase(),s))<3)hits.push([r2+3,m,nm,nm]);});
      else if(s.indexOf('=')>0&&M[m][3])graph(m).n.forEach(function(n){
        if(n[0]==='o'&&n[7]&&n[7].toLowerCase().indexOf(s)>=0)hits.push([6,m,n[1],n[1]]);});}
    hits.sort(function(a,b){return a[0]-b[0]||a[1]-b[1];});}
  body.dataset.hits=String(hits.length);
  st.textContent=s?hits.length+' match'+(hits.length==1?'':'es'):st.textContent;
  if(hits.length)next();}
/* the hits in the panel, grouped by module (the first 300) */
function listHits(){var by={},order=[];hits.slice(0,300).forEach(function(h){
    var m=h[2]===-1?M[h[1]][2]:h[1];if(!by[m]){by[m]=[];order.push(m);}
    by[m].push([h[3],h[2]===-1?'-'+h[1]:h[2]]);});
  var hh=document.createElement('div');hh.className='lh';
  hh.textContent=hits.length+' match'+(hits.length==1?'':'es')+' by module';links.appendChild(hh);
  order.forEach(function(m){linkList((M[m][0]||'(root)')+'  ('+by[m].length+')',by[m]);});}
function clearMarks(){svg.querySelectorAll('.hit,.cur').forEach(function(g){g.classList.remove('hit','cur');});}
function elemOf(h){if(h[2]===-1)return document.getElementById('m:'+h[3]);
  return document.getElementById(h[2]);}
function next(){if(!hits.length)return;cur=(cur+1)%hits.length;var h=hits[cur],t0=performance.now();
  var c=h[2]===-1?M[h[1]][2]:h[1];
  if(setOpen(c))render();clearMarks();
  hits.forEach(function(o){var g=elemOf(o);if(g)g.classList.add('hit');});
  var g=elemOf(h);if(g){g.classList.add('cur');focus(g);}
  if(h[2]===-1)showMod(h[1]);else{var gm=graph(h[1]).n,k=0;
    for(k=0;k<gm.length;k++)if(gm[k][0]==='o'&&gm[k][1]===h[2])break;showNode(h[1],k);mark(g);}
  if(hits.length>1)listHits();
  st.textContent=(cur+1)+' of '+hits.length+': '+h[3];
  body.dataset.actms=String(Math.round(performance.now()-t0));}
function boxOf(g){var r=g.querySelector('rect'),b=r.getBBox(),p=svg.createSVGPoint(),xs=[],ys=[];
  var m=svg.getScreenCTM().inverse().multiply(r.getScreenCTM());
  [[0,0],[1,0],[0,1],[1,1]].forEach(function(c){p.x=b.x+c[0]*b.width;p.y=b.y+c[1]*b.height;
    var t=p.matrixTransform(m);xs.push(t.x);ys.push(t.y);});
  var x=Math.min.apply(null,xs),y=Math.min.apply(null,ys);
  return {x:x,y:y,w:Math.max.apply(null,xs)-x,h:Math.max.apply(null,ys)-y};}
function focus(g){var b=boxOf(g),r=view.getBoundingClientRect();
  var a=r.width>0&&r.height>0?r.height/r.width:vb[3]/vb[2];
  var w=Math.max(b.w*3,Math.min(r.width||800,1000),b.h*3/a);
  vb=[b.x+b.w/2-w/2,b.y+b.h/2-w*a/2,w,w*a];apply();
  body.dataset.focus=Math.round(b.x+b.w/2)+' '+Math.round(b.y+b.h/2);}
q.addEventListener('input',function(){search(q.value);});
q.addEventListener('keydown',function(e){if(e.key==='Enter')next();
  if(e.key==='Escape'){q.value='';search('');q.blur();}});
/* keys: / search, n next match, Escape clear, f fit, + and - zoom, e expand
 * all, c collapse all; with a node selected: Up its first input's producer,
 * Down its first user, Left and Right the previous and next node of its module */
document.addEventListener('keydown',function(e){if(e.target===q||e.ctrlKey||e.metaKey||e.altKey)return;
  var k=e.key,done=true;
  if(k==='/'){q.focus();q.select();}else if(k==='n')next();else if(k==='f')fit();
  else if(k==='+'||k==='=')zoom(1/1.5);else if(k==='-')zoom(1.5);
  else if(k==='e')expandAll();else if(k==='c')collapseAll();
  else if(R&&k==='.')showEvent(Math.min(evAt+1,R.length-1));else if(R&&k===',')showEvent(Math.max(evAt-1,0));
  else if(k==='Escape'){mark(null);lit();clearMarks();}
  else if(sel&&sel.classList.contains('n')&&/^Arrow/.test(k))step(k);else done=false;
  if(done)e.preventDefault();});
function step(k){var m=+sel.dataset.m,i=+sel.dataset.k,n=graph(m).n[i];
  if(k==='ArrowUp'){var a=inputsOf(n);if(a.length)goTo(a[0]);}
  else if(k==='ArrowDown'){var o=owner(n[1]),u=o===undefined?n:ownNode(o,n[1]);
    if(u&&u[8])goTo(u[8].split(' ')[0]);}
  else{var gn=graph(m).n,d=k==='ArrowLeft'?-1:1;
    for(var j=i+d;j>=0&&j<gn.length;j+=d)if(gn[j][0]==='o'&&document.getElementById(gn[j][1])){goTo(gn[j][1]);break;}}}
/* render run -o F.html: the outliner's events (run_data.c) on a timeline:
 * [kind, the event as step prints it, explain's summary, flat node, module].
 * A step shows the event, the frame stack after it (ENTER pushes, EXIT pops)
 * and goes to the node it copied or the module it worked on. */
var R=document.getElementById('run')?data('run'):null,evAt=-1,stacks=[];
function setupRun(){var tl=document.createElement('div');tl.id='timeline';
  tl.innerHTML='<button id="rprev" title="previous event (,)">\u25c0</button>'+
    '<input id="rpos" type="range" min="0" max="'+(R.length-1)+'" value="0" aria-label="event">'+
    '<button id="rnext" title="next event (.)">\u25b6</button>'+
    ['SINK','DEDUP','DISPATCH'].map(function(k){
      return '<button class="rk" data-k="'+k+'">next '+k+'</button>';}).join('')+
    '<span id="rtext"></span><div id="rstack"></div>';
  document.getElementById('bar').insertAdjacentElement('afterend',tl);
  var up=null;R.forEach(function(e,i){if(e[0]==='ENTER')up={f:e[4],up:up};else if(e[0]==='EXIT'&&up)up=up.up;
    stacks[i]=up;});
  document.getElementById('rpos').addEventListener('input',function(){showEvent(+this.value);});
  document.getElementById('rprev').onclick=function(){showEvent(Math.max(evAt-1,0));};
  document.getElementById('rnext').onclick=function(){showEvent(Math.min(evAt+1,R.length-1));};
  tl.querySelectorAll('.rk').forEach(function(b){b.onclick=function(){nextKind(b.dataset.k);};});
  showEvent(0);}
function nextKind(k){for(var i=evAt+1;i<R.length;i++)if(R[i][0]===k){showEvent(i);return;}
  st.textContent='no '+k+' event after event '+(evAt+1);}
function showEvent(k){var e=R[k];evAt=k;document.getElementById('rpos').value=k;
  if(e[3]&&owner(e[3])!==undefined)goTo(e[3]);
  else if(e[4]&&byFqn[e[4]]!==undefined&&byFqn[e[4]]>0)goTo('-'+byFqn[e[4]]);
  document.getElementById('rtext').textContent='['+(k+1)+'/'+R.length+'] '+e[1]+e[2];
  var fr=[];for(var s2=stacks[k];s2;s2=s2.up)fr.push(s2.f||'<root>');
  document.getElementById('rstack').textContent='frame stack: '+(fr.length?fr.map(function(f,i){
    return '#'+i+' '+f;}).join('  '):'(empty)');
  dt.textContent='event '+(k+1)+': '+e[1]+e[2]+'\n\n'+dt.textContent;
  body.dataset.event=String(k+1);body.dataset.eventkind=e[0];}
/* the diff's summary: what changed, the changed modules as links (outermost first) */
function diffSummary(){var n=Object.keys(D.n),add=n.filter(function(k){return D.n[k][0]==='+';}).length;
  dn.textContent='diff: '+D.a.slice(D.a.lastIndexOf('/')+1)+' \u2192 '+D.b.slice(D.b.lastIndexOf('/')+1);
  dt.textContent='this page draws B; '+add+' nodes added (green), '+(n.length-add)+' changed (orange), '+
    dm[0].rm.length+' removed (listed in their module\'s panel). Modules: orange changed, green added, '+
    'grey unchanged (folded); click one to open it.';
  var ch=[];for(var m=1;m<NM;m++)if(diffLine(m)!=='unchanged'&&(M[m][2]===0||depthOf(m)<=2))ch.push(m);
  linkList('changed modules (depth 1-2)',ch.slice(0,200).map(function(m){return [M[m][0]+'  '+diffLine(m),'-'+m];}));
  body.dataset.changed=String(ch.length);}
/* the labels a person can read on the first screen: text 9 px or taller inside the window */
function readable(){var r=view.getBoundingClientRect(),n=0;
  svg.querySelectorAll('text').forEach(function(t){var b=t.getBoundingClientRect();
    if(b.height>=9&&b.bottom>r.top&&b.top<r.bottom&&b.right>r.left&&b.left<r.right)n++;});
  body.dataset.readable=String(n);
  /* boxes cut by the window's left edge; in a tree, the edges with both ends whole in the window */
  var cut=0,whole={},pairs=0;svg.querySelectorAll('g.n>rect,g.mod>rect.box').forEach(function(e){
    var b=e.getBoundingClientRect();if(b.bottom<=r.top||b.top>=r.bottom)return;
    if(b.left<r.left-0.5&&b.right>r.left)cut++;
    if(GEN==='tree'&&b.left>=r.left&&b.right<=r.right&&b.bottom<=r.bottom&&b.top>=r.top&&b.height>=20)
      whole[e.parentNode.dataset.m+':'+e.parentNode.dataset.k]=1;});
  if(GEN==='tree')svg.querySelectorAll('path.e').forEach(function(e){var m=e.dataset.m;
    if(whole[m+':'+e.dataset.f]&&whole[m+':'+e.dataset.t])pairs++;});
  body.dataset.leftcut=String(cut);body.dataset.pairs=String(pairs);}
function measure(){var n=0;svg.querySelectorAll('g.n,g.mod:not(.open)').forEach(function(g){
    var b=g.querySelector('rect').getBBox();g.querySelectorAll(':scope>text').forEach(function(t){
      var r=t.getBBox();if(r.x<b.x-0.5||r.x+r.width>b.x+b.width+0.5)n++;});});
  body.dataset.overflow=String(n);}
var depth=+(body.dataset.depth||1);
for(i=1;i<NM;i++)if(depthOf(i)<depth)open[i]=true;
/* never an empty first screen: a root holding only boxes (a big view's
 * sections) opens its first box, and so on down */
for(var fm=0;GEN&&!graph(fm).n.some(function(n){return n[0]==='o';})&&kids[fm].length;fm=kids[fm][0])
  open[kids[fm][0]]=true;
if(body.dataset.expand)expandAll();else{render();fit();}
if(D)diffSummary();
if(R)setupRun();
body.dataset.modules=String(NM-1);
body.dataset.loadms=String(Math.round(performance.now()));
decodeURIComponent(location.hash.slice(1)).split('&').forEach(function(kv){var i2=kv.indexOf('=');
  if(i2<0)return;var k=kv.slice(0,i2),v=kv.slice(i2+1);
  if(k==='search'){q.value=v;search(v);}
  if(k==='click'){var g=document.getElementById(v.indexOf(':')<0&&byFqn[v]!==undefined?'m:'+v:v);
    if(g){var t=g.querySelector(':scope>rect')||g;
      t.dispatchEvent(new MouseEvent('click',{bubbles:true,cancelable:true}));}
    else body.dataset.errors=(body.dataset.errors||'')+'no '+v+';';}
  if(k==='zoom'){var f=parseFloat(v);if(f>0)zoom(1/f);}
  if(k==='measure')measure();
  if(k==='go')goTo(v);
  if(k==='link'){var a=links.querySelectorAll('a.go')[+v];if(a)a.click();
    else body.dataset.errors=(body.dataset.errors||'')+'no link '+v+';';}
  if(k==='key')document.dispatchEvent(new KeyboardEvent('keydown',{key:v,bubbles:true}));
  if(k==='expand')expandAll();
  if(k==='event'&&R)showEvent(Math.max(0,Math.min(R.length-1,+v-1)));
  if(k==='nextkind'&&R)nextKind(v);
  if(k==='state')document.getElementById('state').click();});
body.dataset.viewbox=vb.map(function(x){return Math.round(x);}).join(' ');
/* "#check=SEARCH|NODE": once the first screen is measured, one page load
 * does what a person would: a search for SEARCH (data-hit: the node it
 * went to, marked current), then NODE's first input link (data-link: the
 * node it went to, data-linklit: its edges lit) */
var chk=(decodeURIComponent(location.hash).match(/[#&]check=([^&]*)/)||[])[1];
function check(){var p=chk.split('|'),c;measure();q.value=p[0];search(p[0]);
  c=svg.querySelector('g.cur');body.dataset.hit=c&&c.id===body.dataset.selected?c.id:'';
  goTo(p[1]);body.dataset.lit='0';c=links.querySelector('a.go');if(c)c.click();
  body.dataset.link=c?body.dataset.selected:'';body.dataset.linklit=body.dataset.lit;}
exdbFirstScreen(body,function(){readable();if(chk)check();});/* base.js */
})();
