"""cdp.py URL OUT_PREFIX STEPS.json - drive headless chromium over CDP: each step
is ["eval", js] | ["wait", seconds] | ["shot", name] (a 1000 px wide PNG) | ["click", x, y]; prints
every network request that is not 127.0.0.1/data/file."""
import json, subprocess, sys, time, urllib.request, websocket, base64, os, signal
url, prefix, steps = sys.argv[1], sys.argv[2], json.load(open(sys.argv[3]))
port = 19333
p = subprocess.Popen(["chromium", "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
                      "--user-data-dir=/tmp/chprof_cdp", "--window-size=1400,900", "--hide-scrollbars",
                      f"--remote-debugging-port={port}", "about:blank"],
                     stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
try:
    for _ in range(50):
        try:
            tabs = json.load(urllib.request.urlopen(f"http://127.0.0.1:{port}/json"))
            break
        except Exception:
            time.sleep(0.2)
    ws = websocket.create_connection([t for t in tabs if t["type"] == "page"][0]["webSocketDebuggerUrl"])
    n = [0]
    def call(method, **params):
        n[0] += 1
        ws.send(json.dumps({"id": n[0], "method": method, "params": params}))
        while True:
            m = json.loads(ws.recv())
            if m.get("method") == "Network.requestWillBeSent":
                u = m["params"]["request"]["url"]
                if not u.startswith(("http://127.0.0.1", "data:", "file:", "blob:", "about:")):
                    print("NETWORK", u)
            if m.get("id") == n[0]:
                return m.get("result", {})
    call("Network.enable")
    call("Page.enable")
    call("Emulation.setDeviceMetricsOverride", width=1400, height=900, deviceScaleFactor=1, mobile=False)
    t0 = time.time()
    call("Page.navigate", url=url)
    for s in steps:
        if s[0] == "wait":
            time.sleep(s[1])
            call("Runtime.evaluate", expression="1")
        elif s[0] == "eval":
            r = call("Runtime.evaluate", expression=s[1], awaitPromise=True, returnByValue=True)
            print("eval", s[1][:60].replace("\n", " "), "->", json.dumps(r.get("result", {}).get("value"))[:300])
        elif s[0] == "click":
            for t in ("mousePressed", "mouseReleased"):
                call("Input.dispatchMouseEvent", type=t, x=s[1], y=s[2], button="left", clickCount=1)
        elif s[0] == "altclick":
            for t in ("mousePressed", "mouseReleased"):
                call("Input.dispatchMouseEvent", type=t, x=s[1], y=s[2], button="left", clickCount=1, modifiers=1)
        elif s[0] == "dblclick":
            for t in ("mousePressed", "mouseReleased"):
                call("Input.dispatchMouseEvent", type=t, x=s[1], y=s[2], button="left", clickCount=2)
        elif s[0] == "key":
            call("Input.insertText", text=s[1])
        elif s[0] == "shot":
            # 1000 px wide (README pictures stay small): the 1400x900 window scaled by 5/7
            r = call("Page.captureScreenshot", format="png",
                     clip={"x": 0, "y": 0, "width": 1400, "height": 900, "scale": 1000 / 1400})
            open(f"{prefix}{s[1]}.png", "wb").write(base64.b64decode(r["data"]))
            print("shot", s[1], f"{time.time() - t0:.1f}s")
finally:
    p.send_signal(signal.SIGTERM)
    p.wait()
