"""Writes Locust's pre-0.14 --csv files with Locust's own code, for the decoder's test:
apps/api/src/ingest/results/fixtures/locust-0.13.0_requests.csv and _distribution.csv, and
locust-0.13.0-samples.tsv (every response time logged, so the test knows the true values).

Usage: python3 scripts/locust-legacy-reference.py <stats.py of locust 0.13.0> <out dir>
(e.g. `git show 0.13.0:locust/stats.py > /tmp/stats.py` in a checkout of github.com/locustio/locust,
tag 0.13.0 = 714651528d52854416d3e08d9fc003fc5e9956e7; needs gevent and six, which Debian's
python3-locust brings). Locust 0.13 itself no longer installs on a current Python, so its
stats.py runs here as it is, inside a stub `locust` package standing in for the modules it
imports (events, exception, log, runners); the CSV text is what its requests_csv() and
distribution_csv() return, written as its write_stat_csvs() writes it.
"""
import os
import random
import shutil
import sys
import tempfile
import types

src, out = sys.argv[1], sys.argv[2]
pkg_root = tempfile.mkdtemp()
pkg = os.path.join(pkg_root, "locust")
os.mkdir(pkg)
shutil.copy(src, os.path.join(pkg, "stats.py"))
with open(os.path.join(pkg, "__init__.py"), "w") as f:
    f.write("")
with open(os.path.join(pkg, "events.py"), "w") as f:
    # stats.py adds its listeners at import (events.request_success += ...).
    f.write(
        "class EventHook(object):\n"
        "    def __init__(self): self._handlers = []\n"
        "    def __iadd__(self, h): self._handlers.append(h); return self\n"
        "    def fire(self, **kw):\n"
        "        for h in self._handlers: h(**kw)\n"
        "request_success = EventHook()\nrequest_failure = EventHook()\n"
        "report_to_master = EventHook()\nslave_report = EventHook()\n"
    )
with open(os.path.join(pkg, "exception.py"), "w") as f:
    f.write("class StopLocust(Exception):\n    pass\n")
with open(os.path.join(pkg, "log.py"), "w") as f:
    f.write("import logging\nconsole_logger = logging.getLogger('console')\n")
with open(os.path.join(pkg, "runners.py"), "w") as f:
    f.write("locust_runner = None\n")
sys.path.insert(0, pkg_root)

from locust import events, runners, stats  # noqa: E402

rnd = random.Random(20191114)
samples = []


def request(method, name, ms, failed=False):
    samples.append((method, name, ms))
    if failed:
        events.request_failure.fire(
            request_type=method, name=name, response_time=ms, response_length=0, exception=Exception("500")
        )
    else:
        events.request_success.fire(request_type=method, name=name, response_time=ms, response_length=512)


# /: 1,000 requests (N p whole for most p), fast with a tail across the 100 ms and 1 s edges.
for i in range(1000):
    ms = rnd.lognormvariate(3.4, 0.9) if i % 50 else rnd.uniform(90, 1300)
    request("GET", "/", ms)
# /search: 613 requests, slower, some failing.
for i in range(613):
    request("GET", "/search", rnd.lognormvariate(4.8, 0.6), failed=(i % 97 == 0))

runners.locust_runner = types.SimpleNamespace(request_stats=stats.global_stats.entries, stats=stats.global_stats)
base = os.path.join(out, "locust-0.13.0")
with open(base + "_requests.csv", "w") as f:
    f.write(stats.requests_csv())
with open(base + "_distribution.csv", "w") as f:
    f.write(stats.distribution_csv())
with open(base + "-samples.tsv", "w") as f:
    for method, name, ms in samples:
        f.write("%s\t%s\t%r\n" % (method, name, ms))
