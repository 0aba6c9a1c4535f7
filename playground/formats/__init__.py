"""Date formats that override Django's for English: every date-time says its zone."""
