"""Closed catalogs the onboarding wizard chooses from: platforms, schedules, destinations, tools.

Every entry has a stable `value` (stored in configurations), a `title` a person reads and a
one-line `description`. The lists are deliberately small: a value that is not here cannot be
configured, so the wizard asks instead of inventing one. Time zones are the exception: any
IANA name `zoneinfo` knows is accepted, and TIMEZONES is only the short list offered first.
"""

from __future__ import annotations

from dataclasses import dataclass
from zoneinfo import available_timezones


@dataclass(frozen=True)
class Option:
    """One choice in a catalog."""

    value: str
    title: str
    description: str = ""


@dataclass(frozen=True)
class Platform(Option):
    """A system the agent reads its work from.

    `words` identify the platform in a description (matched as whole words, an optional plural
    "s" allowed; a capitalised word is matched case-sensitively and not at the start of a
    sentence, so "Front" the product is told apart from "in front of"). `generic_words` only
    count when no other platform is named ("the Zendesk inbox" is Zendesk, not email).
    """

    words: tuple[str, ...] = ()
    generic_words: tuple[str, ...] = ()
    tools: tuple[str, ...] = ()


@dataclass(frozen=True)
class Destination(Option):
    """A place the agent delivers its results to; `target` names the detail it needs."""

    target: str | None = None
    tools: tuple[str, ...] = ()


PLATFORMS: tuple[Platform, ...] = (
    Platform(
        "zendesk",
        "Zendesk",
        "Support tickets in a Zendesk help desk.",
        words=("zendesk",),
        tools=("read_tickets",),
    ),
    Platform(
        "intercom",
        "Intercom",
        "Customer conversations in Intercom.",
        words=("intercom",),
        tools=("read_conversations",),
    ),
    Platform(
        "freshdesk",
        "Freshdesk",
        "Support tickets in a Freshdesk help desk.",
        words=("freshdesk",),
        tools=("read_tickets",),
    ),
    Platform(
        "helpscout",
        "Help Scout",
        "Customer conversations in a Help Scout mailbox.",
        words=("help scout", "helpscout"),
        tools=("read_conversations",),
    ),
    Platform(
        "front",
        "Front",
        "Shared-inbox conversations in Front.",
        words=("Front", "frontapp", "front app", "front inbox"),
        tools=("read_conversations",),
    ),
    Platform(
        "github",
        "GitHub",
        "Issues and pull requests in GitHub repositories.",
        words=("github", "gh", "pull request", "pr"),
        tools=("read_issues",),
    ),
    Platform(
        "slack",
        "Slack",
        "Messages in Slack channels.",
        words=("slack",),
        tools=("read_messages",),
    ),
    Platform(
        "email",
        "Email",
        "Messages arriving in an email inbox.",
        words=("gmail", "outlook"),
        generic_words=("email", "e-mail", "inbox", "mailbox"),
        tools=("read_emails",),
    ),
)

# The schedule kinds and the keys each one needs besides `kind`:
#   on_demand, hourly                      nothing more
#   every_n_minutes                        minutes (5..1440)
#   daily, weekdays                        time ("HH:MM")
#   times_a_day                            times (2..12 "HH:MM", sorted), weekdays_only (bool)
#   weekly                                 days (weekday values, week order), time
#   every_n_weeks                          weeks (2..12), days, time; counted from the first run
#   monthly                                day_of_month (a MONTH_DAYS value), time
TRIGGERS: tuple[Option, ...] = (
    Option("on_demand", "When I ask", "Runs only when someone starts it from the chat."),
    Option("every_n_minutes", "Every few minutes", "Runs every N minutes, between 5 and 1440."),
    Option("hourly", "Every hour", "Runs once an hour, on the hour."),
    Option("daily", "Every day", "Runs once a day at a set time."),
    Option("times_a_day", "Several times a day", "Runs at two or more set times each day."),
    Option("weekdays", "Every weekday", "Runs Monday to Friday at a set time."),
    Option("weekly", "Every week", "Runs on one or more days each week, at a set time."),
    Option("every_n_weeks", "Every few weeks", "Runs every 2 to 12 weeks on set days."),
    Option("monthly", "Every month", "Runs once a month on a set day."),
)

# Schedules that fire at a clock time, and so need a time zone.
TIMED_TRIGGERS: frozenset[str] = frozenset(
    {"daily", "times_a_day", "weekdays", "weekly", "every_n_weeks", "monthly"}
)

DAYS: tuple[Option, ...] = (
    Option("monday", "Monday"),
    Option("tuesday", "Tuesday"),
    Option("wednesday", "Wednesday"),
    Option("thursday", "Thursday"),
    Option("friday", "Friday"),
    Option("saturday", "Saturday"),
    Option("sunday", "Sunday"),
)


def ordinal(day: int) -> str:
    """Return "1st", "2nd", "23rd", "11th" for a day number."""
    suffix = "th" if 10 <= day % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(day % 10, "th")
    return f"{day}{suffix}"


# Days up to the 28th exist in every month; the 29th to 31st are asked about, never shifted.
MONTH_DAYS: tuple[Option, ...] = (
    Option("first_weekday", "The first weekday", "The first Monday to Friday of the month."),
    *(Option(str(day), f"The {ordinal(day)}") for day in range(1, 29)),
    Option("last_weekday", "The last weekday", "The last Monday to Friday of the month."),
    Option("last_day", "The last day", "The 28th to the 31st, depending on the month."),
)

DESTINATIONS: tuple[Destination, ...] = (
    Destination(
        "slack",
        "Slack channel",
        "Posts the result in a Slack channel, such as #support.",
        target="channel",
        tools=("post_message",),
    ),
    Destination(
        "email",
        "Email",
        "Sends the result to an email address.",
        target="address",
        tools=("send_email",),
    ),
    Destination(
        "slack_dm",
        "Slack direct message",
        "Sends the result to you as a direct message in Slack.",
        tools=("post_message",),
    ),
    Destination("chat", "This chat", "Replies here in the playground chat."),
    Destination(
        "github_comment",
        "GitHub comment",
        "Comments on the GitHub issue or pull request it worked on.",
        tools=("comment_on_issue",),
    ),
)

TOOLS: tuple[Option, ...] = (
    Option("request_input", "Ask a question", "Asks the person a question with a form."),
    Option("read_tickets", "Read tickets", "Lists and reads help-desk tickets."),
    Option("read_conversations", "Read conversations", "Lists and reads customer conversations."),
    Option("read_issues", "Read issues", "Lists and reads GitHub issues and pull requests."),
    Option("read_messages", "Read messages", "Reads messages from Slack channels."),
    Option("read_emails", "Read emails", "Reads messages from an email inbox."),
    Option("post_message", "Post to Slack", "Posts a message in a Slack channel."),
    Option("send_email", "Send email", "Sends an email."),
    Option("comment_on_issue", "Comment on GitHub", "Comments on a GitHub issue or pull request."),
)

# Included in every configuration: the agent must be able to ask instead of guessing.
ALWAYS_TOOLS: tuple[str, ...] = ("request_input",)

TIMEZONES: tuple[Option, ...] = (
    Option("UTC", "UTC", "Coordinated Universal Time, no daylight saving."),
    Option("Europe/London", "London", "United Kingdom (GMT, BST in summer)."),
    Option("Europe/Dublin", "Dublin", "Ireland (GMT, IST in summer)."),
    Option("Europe/Lisbon", "Lisbon", "Portugal (WET, WEST in summer)."),
    Option("Europe/Paris", "Paris", "France (CET, CEST in summer)."),
    Option("Europe/Berlin", "Berlin", "Germany and most of central Europe (CET, CEST in summer)."),
    Option("Europe/Amsterdam", "Amsterdam", "Netherlands (CET, CEST in summer)."),
    Option("Europe/Madrid", "Madrid", "Spain (CET, CEST in summer)."),
    Option("Europe/Stockholm", "Stockholm", "Sweden (CET, CEST in summer)."),
    Option("Europe/Warsaw", "Warsaw", "Poland (CET, CEST in summer)."),
    Option("Europe/Helsinki", "Helsinki", "Finland (EET, EEST in summer)."),
    Option("Europe/Istanbul", "Istanbul", "Turkey (TRT, no daylight saving)."),
    Option("Asia/Jerusalem", "Israel", "Israel (IST, IDT in summer)."),
    Option("Africa/Johannesburg", "Johannesburg", "South Africa (SAST)."),
    Option("Asia/Dubai", "Dubai", "United Arab Emirates (GST)."),
    Option("Asia/Kolkata", "India", "India Standard Time (IST)."),
    Option("Asia/Singapore", "Singapore", "Singapore (SGT)."),
    Option("Asia/Shanghai", "China", "China Standard Time."),
    Option("Asia/Tokyo", "Tokyo", "Japan Standard Time (JST)."),
    Option("Asia/Seoul", "Seoul", "Korea Standard Time (KST)."),
    Option("Australia/Sydney", "Sydney", "Australian Eastern Time (AEST, AEDT in summer)."),
    Option("Pacific/Auckland", "Auckland", "New Zealand (NZST, NZDT in summer)."),
    Option("America/Sao_Paulo", "São Paulo", "Brazil (BRT)."),
    Option("America/New_York", "US Eastern", "New York, Toronto (EST, EDT in summer)."),
    Option("America/Chicago", "US Central", "Chicago, Dallas (CST, CDT in summer)."),
    Option("America/Denver", "US Mountain", "Denver (MST, MDT in summer)."),
    Option("America/Los_Angeles", "US Pacific", "Los Angeles, Seattle (PST, PDT in summer)."),
)


def find(options: tuple[Option, ...], value: object) -> Option | None:
    """Return the option with this value, or None."""
    return next((option for option in options if option.value == value), None)


def values(options: tuple[Option, ...]) -> list[str]:
    """Return the values of a catalog, in catalog order."""
    return [option.value for option in options]


# Every IANA name zoneinfo knows; "UTC" included. Read once: it lists files on disk.
IANA_ZONES: frozenset[str] = frozenset(available_timezones())


def is_timezone(value: object) -> bool:
    """Return whether the value is an IANA time zone name zoneinfo knows, such as "Asia/Tokyo"."""
    return isinstance(value, str) and value in IANA_ZONES


def timezone_title(value: str) -> str:
    """Return how a person reads a zone: the curated title ("US Eastern") or the IANA name."""
    option = find(TIMEZONES, value)
    return option.title if option else value


def tools_for(platform: str | None, destination_kind: str | None) -> list[str]:
    """Return the tools an agent needs for a platform and a destination, in catalog order."""
    wanted = set(ALWAYS_TOOLS)
    source = find(PLATFORMS, platform)
    if isinstance(source, Platform):
        wanted.update(source.tools)
    target = find(DESTINATIONS, destination_kind)
    if isinstance(target, Destination):
        wanted.update(target.tools)
    return [value for value in values(TOOLS) if value in wanted]
