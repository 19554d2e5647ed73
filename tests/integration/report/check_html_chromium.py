#!/usr/bin/env python3
"""Render a fold HTML report in headless Chromium and check what a user sees.

usage: check_html_chromium.py REPORT.html [--expect TEXT]... [--screenshot OUT.png]
                              [--interact] [--regions N]

Checks: no external URL in the file; the page loads without console errors
or uncaught exceptions (Chromium's log and the report's own window.onerror
sink); the script ran; each --expect text is in the rendered DOM; no markup
was injected (exactly fold's three script elements, no img); the screenshot
is not blank. With --interact, a copy of the page gets a test script that
drives the region selector, a sortable column, a zoom drag and a hover, and
records the results in the DOM. Exit 77 (ctest SKIP) when Chromium is absent.
"""
import argparse
import html
import json
import os
import re
import shutil
import struct
import subprocess
import sys
import tempfile
import zlib

SKIP = 77

INTERACT_JS = r"""
<script>
(function(){
 var out={};
 try{
  var ts=document.getElementById('thread-select');
  if(ts&&ts.options.length>1){ts.value=ts.options[1].value;ts.dispatchEvent(new Event('change'));
   out.threadAllHidden=document.querySelector('#hot-cpu tbody[data-thread="all"]').classList.contains('hidden');
   out.threadShown=document.querySelectorAll('#hot-cpu tbody[data-thread]:not(.hidden)').length;
   var of=document.getElementById('cpu-of');
   out.threadOf=of?of.textContent:null;out.threadOfWant=ts.options[1].getAttribute('data-of');
   ts.value='all';ts.dispatchEvent(new Event('change'));
   out.threadBack=!document.querySelector('#hot-cpu tbody[data-thread="all"]').classList.contains('hidden');
   out.threadOfBack=of?of.textContent===of.getAttribute('data-all'):null;}
  /* every chart's hover: a curve without data (no phase has the samples
     for its rate) says so, never a rate of NaN or of 0 */
  out.tips=[];
  document.querySelectorAll('svg.chart.zoomable').forEach(function(s){var b=s.getBoundingClientRect();
   s.dispatchEvent(new MouseEvent('mousemove',{clientX:b.left+b.width*0.5,clientY:b.top+b.height/2,bubbles:true}));
   out.tips.push([!!s.querySelector('text.nodata'),document.getElementById('tip').textContent]);});
  var sel=document.getElementById('region-select'),nreg=document.querySelectorAll('section.region').length;
  sel.value=String(nreg-1);sel.dispatchEvent(new Event('change'));
  out.hidden=document.querySelectorAll('section.region.hidden').length;
  sel.value='all';sel.dispatchEvent(new Event('change'));
  out.hiddenAfter=document.querySelectorAll('section.region.hidden').length;
  var calls=Array.prototype.map.call(document.querySelectorAll('#profile-table tbody td:nth-child(3)'),function(td){return td.textContent;});
  out.sortable=new Set(calls).size>1;
  var th=document.querySelector('#profile-table thead th:nth-child(3)');
  th.click();
  out.sortedFirst=document.querySelector('#profile-table tbody tr td:nth-child(3)').textContent;
  th.click();
  out.sortedFirstAsc=document.querySelector('#profile-table tbody tr td:nth-child(3)').textContent;
  var svg=document.querySelector('section.region svg.chart.zoomable');
  var r=svg.getBoundingClientRect();
  function ev(t,f){svg.dispatchEvent(new MouseEvent(t,{clientX:r.left+r.width*f,clientY:r.top+r.height/2,bubbles:true}));}
  var before=svg.querySelector('.zd polyline.rate').getAttribute('points');
  ev('mousedown',0.3);ev('mousemove',0.45);ev('mouseup',0.6);
  out.zoomLabel=svg.closest('section').querySelector('.zoomlabel').textContent;
  out.zoomChanged=svg.querySelector('.zd polyline.rate').getAttribute('points')!==before;
  out.xTicks=svg.querySelectorAll('g.xa text').length;
  ev('mousemove',0.5);
  out.tip=document.getElementById('tip').textContent;
  svg.dispatchEvent(new MouseEvent('dblclick',{bubbles:true}));
  out.unzoomed=svg.querySelector('.zd polyline.rate').getAttribute('points')===before;
  var ss=svg.closest('section').querySelector('select.series-select');
  ss.value='1';ss.dispatchEvent(new Event('change'));
  out.seriesShown=svg.closest('section').querySelectorAll('figure.series:not(.hidden)').length;
 }catch(e){out.error=String(e)+' '+(e.stack||'');}
 document.body.setAttribute('data-test',JSON.stringify(out));
})();
</script>
"""


def find_chromium():
    for name in ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable"):
        path = shutil.which(name)
        if path:
            return path
    return None


class Overloaded(Exception):
    """Chromium did not finish in time while the machine was overloaded."""


def run_chromium(chromium, args, url, profile):
    """Runs Chromium once. A run that does not finish in 120 s is a failure
    (a report whose script never ends looks like that), unless the machine's
    load average then exceeds twice its CPUs: the page cannot be judged on a
    machine that busy, and Overloaded says so with the figures."""
    cmd = [chromium, "--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
           "--no-first-run", "--disable-background-networking", "--disable-component-update",
           "--disable-sync", "--hide-scrollbars", "--user-data-dir=" + profile,
           "--enable-logging=stderr", "--v=0"] + args + [url]
    try:
        p = subprocess.run(cmd, capture_output=True, timeout=120)
    except subprocess.TimeoutExpired:
        load = float(open("/proc/loadavg").read().split()[0])
        ncpu = os.cpu_count() or 1
        if load > 2 * ncpu:
            raise Overloaded("Chromium did not finish in 120 s while the machine's load average was %.1f on %d CPUs"
                             % (load, ncpu))
        return -1, "", "chromium did not finish in 120 s (load average %.1f on %d CPUs)" % (load, ncpu)
    return p.returncode, p.stdout.decode("utf-8", "replace"), p.stderr.decode("utf-8", "replace")


def console_errors(stderr):
    bad = []
    for line in stderr.splitlines():
        if "Uncaught" in line or "ERROR:CONSOLE" in line or ":CONSOLE(" in line and "rror" in line:
            bad.append(line)
    return bad


def png_pixels(path):
    """Decodes an 8-bit RGB/RGBA non-interlaced PNG: (width, height, channels, rows)."""
    data = open(path, "rb").read()
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        raise ValueError("not a PNG")
    pos, idat, ihdr = 8, b"", None
    while pos < len(data):
        length, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + length]
        if kind == b"IHDR":
            ihdr = struct.unpack(">IIBBBBB", body)
        elif kind == b"IDAT":
            idat += body
        pos += 12 + length
    width, height, depth, ctype, _, _, interlace = ihdr
    if depth != 8 or ctype not in (2, 6) or interlace:
        raise ValueError("unsupported PNG layout %r" % (ihdr,))
    ch = 3 if ctype == 2 else 4
    raw = zlib.decompress(idat)
    stride = width * ch
    rows, prev = [], bytearray(stride)
    for y in range(height):
        f = raw[y * (stride + 1)]
        line = bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        if f == 1:
            for i in range(ch, stride):
                line[i] = (line[i] + line[i - ch]) & 255
        elif f == 2:
            for i in range(stride):
                line[i] = (line[i] + prev[i]) & 255
        elif f == 3:
            for i in range(stride):
                left = line[i - ch] if i >= ch else 0
                line[i] = (line[i] + ((left + prev[i]) >> 1)) & 255
        elif f == 4:
            for i in range(stride):
                a = line[i - ch] if i >= ch else 0
                b = prev[i]
                c = prev[i - ch] if i >= ch else 0
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                pr = a if pa <= pb and pa <= pc else (b if pb <= pc else c)
                line[i] = (line[i] + pr) & 255
        rows.append(bytes(line))
        prev = line
    return width, height, ch, rows


def check_screenshot(path, failures):
    w, h, ch, rows = png_pixels(path)
    counts = {}
    for y in range(0, h, 3):
        row = rows[y]
        for x in range(0, w * ch, ch * 3):
            px = row[x:x + 3]
            counts[px] = counts.get(px, 0) + 1
    total = sum(counts.values())
    top = max(counts.values())
    if len(counts) < 16 or top > 0.97 * total:
        failures.append("screenshot %s looks blank: %d colours, dominant %.1f%%"
                        % (path, len(counts), 100.0 * top / total))
    return w, h, len(counts)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("report")
    ap.add_argument("--expect", action="append", default=[])
    ap.add_argument("--screenshot")
    ap.add_argument("--interact", action="store_true")
    ap.add_argument("--regions", type=int, default=0)
    args = ap.parse_args()

    chromium = find_chromium()
    if not chromium:
        print("chromium not found: skipping")
        return SKIP
    failures = []
    src = open(args.report, "rb").read().decode("utf-8")  # must be valid UTF-8
    for m in re.finditer(r"(?i)(?:https?|ftp|wss?):|//[a-z0-9-]+\.[a-z0-9.-]+/|\b(?:src|href)\s*=\s*\"(?!#)", src):
        failures.append("external reference in the file: ...%s..." % src[max(0, m.start() - 40):m.end() + 40])

    work = tempfile.mkdtemp(prefix="fold-chromium-")
    try:
        return judge(chromium, args, src, work, failures)
    except Overloaded as e:
        print("SKIP: %s; the report's rendering cannot be judged" % e)
        return SKIP
    finally:
        shutil.rmtree(work, ignore_errors=True)


def judge(chromium, args, src, work, failures):
    """Renders the report in Chromium and checks it; 1 on failures, 0 if none."""
    page = args.report
    if args.interact:
        page = os.path.join(work, "interact.html")
        with open(page, "w", encoding="utf-8") as f:
            f.write(src.replace("</body>", INTERACT_JS + "</body>"))
    url = "file://" + os.path.abspath(page)
    rc, dom, err = run_chromium(chromium, ["--dump-dom", "--virtual-time-budget=3000"], url,
                                os.path.join(work, "p1"))
    if rc != 0:
        failures.append("chromium --dump-dom exited %d: %s" % (rc, err[-2000:]))
    for line in console_errors(err):
        failures.append("console: " + line)
    if not re.search(r'<html[^>]*class="js"', dom):
        failures.append("the report's script did not run (no class=js on <html>)")
    m = re.search(r'<pre id="fold-js-errors"[^>]*>(.*?)</pre>', dom, re.S)
    if m is None or m.group(1).strip() or 'data-errors' in dom[m.start():m.end()]:
        failures.append("script errors recorded in the page: %s" % (m.group(1) if m else "sink missing"))
    nscript = len(re.findall(r"<script", dom)) - (1 if args.interact else 0)
    if nscript != 3:
        failures.append("expected fold's 3 script elements in the DOM, found %d" % nscript)
    if re.search(r"<img", dom):
        failures.append("an <img> element was injected")
    text = html.unescape(dom)
    for want in args.expect:
        if want not in text:
            failures.append("not in the rendered DOM: %r" % want)
    if args.regions and len(re.findall(r'<section class="region', dom)) != args.regions:
        failures.append("expected %d region sections" % args.regions)
    if args.interact:
        m = re.search(r'<body[^>]*data-test="([^"]*)"', dom)
        if not m:
            failures.append("interaction script did not report")
        else:
            res = json.loads(html.unescape(m.group(1)))
            print("interaction:", json.dumps(res))
            nreg = len(re.findall(r'<section class="region', dom))
            checks = [
                ("error" not in res, "interaction raised: %s" % res.get("error")),
                (res.get("hidden") == nreg - 1, "region selector did not hide the other regions"),
                (res.get("hiddenAfter") == 0, "region selector did not show all regions again"),
                (not res.get("sortable") or res.get("sortedFirst") != res.get("sortedFirstAsc"),
                 "sorting did not reorder the table"),
                (res.get("zoomChanged") is True, "zoom drag did not remap the chart"),
                (str(res.get("zoomLabel", "")).startswith("showing 0."), "zoom label: %r" % res.get("zoomLabel")),
                (res.get("xTicks", 0) >= 3, "zoomed axis has no ticks"),
                ("rate" in res.get("tip", ""), "hover shows no value: %r" % res.get("tip")),
                (res.get("unzoomed") is True, "double-click did not reset the zoom"),
                (res.get("seriesShown") == 1, "counter selector did not filter the charts"),
            ]
            for nodata, tip in res.get("tips", []):
                if "NaN" in tip:
                    checks.append((False, "a chart's hover reads NaN: %r" % tip))
                if nodata and "rate no data" not in tip:
                    checks.append((False, "a chart without a rate curve reads a rate on hover: %r" % tip))
            if "threadShown" in res:
                checks += [
                    (res.get("threadAllHidden") is True and res.get("threadShown") == 1,
                     "thread selector did not show only the chosen thread's functions"),
                    (res.get("threadBack") is True, "thread selector did not show all threads again"),
                    # the shares are of the chosen thread's CPU time: the note says so
                    (not res.get("threadOfWant") or res.get("threadOf") == res.get("threadOfWant"),
                     "the CPU note reads %r for a thread whose shares are of %r" % (res.get("threadOf"),
                                                                                  res.get("threadOfWant"))),
                    (res.get("threadOfBack") in (True, None), "the CPU note did not come back to all threads"),
                ]
            failures += [msg for ok, msg in checks if not ok]
    if args.screenshot:
        rc, _, err = run_chromium(chromium, ["--screenshot=" + os.path.abspath(args.screenshot),
                                             "--window-size=1200,900"],
                               "file://" + os.path.abspath(args.report), os.path.join(work, "p2"))
        if rc != 0 or not os.path.exists(args.screenshot):
            failures.append("chromium --screenshot failed (%d): %s" % (rc, err[-2000:]))
        else:
            w, h, ncol = check_screenshot(args.screenshot, failures)
            print("screenshot %s: %dx%d, %d colours sampled" % (args.screenshot, w, h, ncol))
    for f in failures:
        print("FAIL:", f)
    print("%s: %s" % (args.report, "ok" if not failures else "%d failure(s)" % len(failures)))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
