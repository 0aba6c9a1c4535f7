"""The playground's one date-time format, as the chat shows it ("7 Dec 2026, 13:40 CET"), for
everything Django formats itself (the admin's lists, detail pages and read-only fields)."""

DATE_FORMAT = "j M Y"
TIME_FORMAT = "H:i"
DATETIME_FORMAT = "j M Y, H:i T"
SHORT_DATETIME_FORMAT = DATETIME_FORMAT
