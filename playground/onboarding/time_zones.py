"""Find the time zone a description means: city, region, abbreviation or IANA name.

Three sources, all resolved to names `zoneinfo` knows:
- the curated zones (`catalog.TIMEZONES`) and a small table of their common names
  ("Berlin time", "US Eastern", "NYC", "Bay Area"), matched anywhere;
- abbreviations, matched case-sensitively ("ET", not "et"); "IST" is India, Ireland or Israel,
  so it is asked rather than guessed;
- any other IANA zone by its full name ("America/Vancouver") or by its city when the text
  says it is a time ("Vancouver time", "time zone: Lagos"), so a city word alone ("Phoenix
  project") is not read as a zone.
"""

from __future__ import annotations

import re

from playground.onboarding import catalog

# Abbreviations; an empty tuple would mean unknown, several zones mean "ask which".
ABBREVIATIONS: dict[str, tuple[str, ...]] = {
    "UTC": ("UTC",),
    "GMT": ("UTC",),
    "BST": ("Europe/London",),
    "WET": ("Europe/Lisbon",),
    "CET": ("Europe/Berlin",),
    "CEST": ("Europe/Berlin",),
    "EET": ("Europe/Helsinki",),
    "EEST": ("Europe/Helsinki",),
    "SAST": ("Africa/Johannesburg",),
    "IST": ("Asia/Kolkata", "Europe/Dublin", "Asia/Jerusalem"),
    "SGT": ("Asia/Singapore",),
    "JST": ("Asia/Tokyo",),
    "KST": ("Asia/Seoul",),
    "AEST": ("Australia/Sydney",),
    "AEDT": ("Australia/Sydney",),
    "NZST": ("Pacific/Auckland",),
    "NZDT": ("Pacific/Auckland",),
    "ET": ("America/New_York",),
    "EST": ("America/New_York",),
    "EDT": ("America/New_York",),
    "CT": ("America/Chicago",),
    "CST": ("America/Chicago",),
    "CDT": ("America/Chicago",),
    "MT": ("America/Denver",),
    "MST": ("America/Denver",),
    "MDT": ("America/Denver",),
    "PT": ("America/Los_Angeles",),
    "PST": ("America/Los_Angeles",),
    "PDT": ("America/Los_Angeles",),
    "NY": ("America/New_York",),
    "NYC": ("America/New_York",),
    "SF": ("America/Los_Angeles",),
    "LA": ("America/Los_Angeles",),
}

# Common names of the curated zones, matched case-insensitively anywhere in the text.
NAMES: dict[str, tuple[str, ...]] = {
    "UTC": ("utc", "gmt", "zulu"),
    "Europe/London": ("london", "uk time", "british time"),
    "Europe/Dublin": ("dublin", "ireland", "irish time"),
    "Europe/Lisbon": ("lisbon", "portugal"),
    "Europe/Paris": ("paris", "france", "french time"),
    "Europe/Berlin": ("berlin", "germany", "german time", "cet", "central european", "munich"),
    "Europe/Amsterdam": ("amsterdam", "netherlands", "dutch time"),
    "Europe/Madrid": ("madrid", "barcelona", "spain"),
    "Europe/Stockholm": ("stockholm", "sweden"),
    "Europe/Warsaw": ("warsaw", "poland"),
    "Europe/Helsinki": ("helsinki", "finland"),
    "Europe/Istanbul": ("istanbul", "turkey"),
    "Asia/Jerusalem": ("israel", "tel aviv", "jerusalem"),
    "Africa/Johannesburg": ("johannesburg", "cape town", "south africa"),
    "Asia/Dubai": ("dubai", "abu dhabi", "uae"),
    "Asia/Kolkata": ("india", "indian time", "mumbai", "delhi", "bangalore", "bengaluru"),
    "Asia/Singapore": ("singapore",),
    "Asia/Shanghai": ("china", "beijing", "shanghai"),
    "Asia/Tokyo": ("tokyo", "japan", "japanese time"),
    "Asia/Seoul": ("seoul", "korea"),
    "Australia/Sydney": ("sydney", "melbourne"),
    "Pacific/Auckland": ("auckland", "new zealand"),
    "America/Sao_Paulo": ("são paulo", "sao paulo", "brazil"),
    "America/New_York": (
        "new york",
        "nyc",
        "boston",
        "toronto",
        "eastern time",
        "us eastern",
        "east coast",
    ),
    "America/Chicago": ("chicago", "dallas", "central time", "us central"),
    "America/Denver": ("denver", "mountain time", "us mountain"),
    "America/Los_Angeles": (
        "los angeles",
        "san francisco",
        "seattle",
        "pacific",
        "us pacific",
        "bay area",
        "west coast",
    ),
}

_WORD_EDGE_BEFORE = r"(?<![\w/])"
_WORD_EDGE_AFTER = r"(?![\w/])"


def _phrase(name: str) -> str:
    return r"[\s_-]+".join(map(re.escape, name.split()))


def _curated_patterns() -> list[tuple[re.Pattern[str], str]]:
    patterns = []
    for option in catalog.TIMEZONES:
        names = [option.value, *NAMES.get(option.value, ())]
        body = "|".join(_phrase(name) for name in names)
        if option.value == "America/New_York":
            body += r"|eastern(?!\s+europe)"
        pattern = re.compile(rf"{_WORD_EDGE_BEFORE}(?:{body}){_WORD_EDGE_AFTER}", re.I)
        patterns.append((pattern, option.value))
    return patterns


def _city_zones() -> dict[str, str]:
    """Return every IANA zone by its city, lower-cased: {"vancouver": "America/Vancouver"}."""
    cities = {}
    for zone in sorted(catalog.IANA_ZONES):
        area, _, city = zone.rpartition("/")
        if area and not area.startswith(("Etc", "SystemV", "US", "Canada", "Brazil", "Chile")):
            cities.setdefault(city.replace("_", " ").lower(), zone)
    return cities


_CURATED = _curated_patterns()
_ABBREVIATION = re.compile(
    rf"{_WORD_EDGE_BEFORE}({'|'.join(map(re.escape, ABBREVIATIONS))}){_WORD_EDGE_AFTER}"
)
_IANA_NAME = re.compile(r"(?<![\w/])([A-Z][A-Za-z_-]+(?:/[A-Z][A-Za-z0-9_+-]+){1,2})(?![\w/])")
_CITIES = _city_zones()
# Up to four capitalised words, looked up in _CITIES longest first ("Mexico City").
_WORDS = r"((?:[A-Z][\w.-]*[ _-]+){0,3}[A-Z][\w.-]*)"
_CITY_TIME = re.compile(
    rf"{_WORDS}(?:'s)?\s+(?:local\s+)?time\b|"
    rf"(?i:\btime\s*zone|\btimezone|\btz)\s*(?:is|:|=|of)?\s*{_WORDS}"
)


def _city_zone(match: re.Match[str]) -> str | None:
    """Return the zone of the city a "<City> time" or "time zone: <City>" match names."""
    before, after = match.group(1), match.group(2)
    words = (before or after).replace("_", " ").replace("-", " ").lower().split()
    # "<City> time" ends at the city; "time zone: <City>" starts with it.
    spans = (
        [words[i:] for i in range(len(words))]
        if before
        else [words[:i] for i in range(len(words), 0, -1)]
    )
    return next((_CITIES[" ".join(s)] for s in spans if " ".join(s) in _CITIES), None)


def find_timezones(text: str) -> tuple[str, ...]:
    """Return the zone the text names first, or the zones it may mean ("IST"); () if none."""
    if not isinstance(text, str):
        return ()
    found: list[tuple[int, tuple[str, ...]]] = []
    for pattern, zone in _CURATED:
        if match := pattern.search(text):
            found.append((match.start(), (zone,)))
    if match := _ABBREVIATION.search(text):
        found.append((match.start(), ABBREVIATIONS[match.group(1)]))
    for match in _IANA_NAME.finditer(text):
        if catalog.is_timezone(match.group(1)):
            found.append((match.start(), (match.group(1),)))
            break
    for match in _CITY_TIME.finditer(text):
        if zone := _city_zone(match):
            found.append((match.start(), (zone,)))
            break
    return min(found)[1] if found else ()


def find_timezone(text: str) -> str | None:
    """Return the one IANA zone the text names first ("Berlin time", "9am ET"), or None."""
    zones = find_timezones(text)
    return zones[0] if len(zones) == 1 else None


def read_timezone(value: object) -> str | None:
    """Return the zone a person typed: an IANA name, a city or an abbreviation; None if unknown."""
    if not isinstance(value, str) or not value.strip():
        return None
    typed = value.strip()
    if catalog.is_timezone(typed):
        return typed
    exact = {zone.lower(): zone for zone in catalog.IANA_ZONES}
    if typed.lower() in exact:
        return exact[typed.lower()]
    city = " ".join(typed.lower().replace("_", " ").split())
    if city in _CITIES:
        return _CITIES[city]
    return find_timezone(typed)
