"""Django's English date-time formats with the zone's abbreviation (`T`) added."""

DATETIME_FORMAT = "N j, Y, P T"
SHORT_DATETIME_FORMAT = "m/d/Y P T"
