"""The NZ Rates API from Python, standard library only (Python 3.8 or later).

Prints one lender's mortgage rates, the lowest 1-year fixed rates, and the error an unknown
institution gets.

    python3 rates.py [base URL]
"""

import json
import os
import sys
import urllib.error
import urllib.parse
import urllib.request

BASE_URL = sys.argv[1] if len(sys.argv) > 1 else os.environ.get("RATES_API_URL", "https://nz-rates-service.vercel.app")


class ApiError(Exception):
    """The one error body every endpoint answers with: code, error, message, hint, documentationUrl."""

    def __init__(self, body):
        super().__init__(f"{body['code']} {body['error']}: {body['message']} — {body['hint']}")
        self.code = body["code"]  # the HTTP status
        self.error = body["error"]  # stable: branch on it


def get(path, **query):
    url = BASE_URL.rstrip("/") + urllib.parse.quote(path, safe="/:") + ("?" + urllib.parse.urlencode(query) if query else "")
    try:
        with urllib.request.urlopen(urllib.request.Request(url, headers={"Accept": "application/json"}), timeout=30) as response:
            # A path that is going away says so in headers before it does (/docs/stability).
            for header in ("Deprecation", "Sunset", "Link"):
                if response.headers.get(header):
                    print(f"{url}: {header}: {response.headers[header]}", file=sys.stderr)
            return json.load(response)
    except urllib.error.HTTPError as error:
        raise ApiError(json.load(error)) from None


def table(rows):
    widths = [max(len(str(row[i])) for row in rows) for i in range(len(rows[0]))]
    for row in rows:
        print("  " + "  ".join(str(cell).ljust(width) for cell, width in zip(row, widths)))


# One lender, every term.
for institution in get("/api/v1/mortgage-rates/institution:asb")["data"]:
    print(f"{institution['name']} mortgage rates")
    table([(p["name"], r["term"], f"{r['rate']:.2f} %") for p in institution["products"] for r in p["rates"]])

# Every lender, 1-year fixed only: the five lowest.
one_year = get("/api/v1/mortgage-rates", termInMonths=12)
rates = [(r["rate"], i["name"], p["name"]) for i in one_year["data"] for p in i["products"] for r in p["rates"]]
print(f"\nLowest 1-year fixed rates (changed {one_year['lastUpdated']})")
for rate, lender, product in sorted(rates)[:5]:
    print(f"  {rate:6.2f} %  {lender}, {product}")

# An institution the API does not know: the documented 404.
try:
    get("/api/v1/mortgage-rates/institution:no-such-bank")
    raise SystemExit("expected a 404 for an unknown institution")
except ApiError as error:
    print(f"\nUnknown institution: {error}")
