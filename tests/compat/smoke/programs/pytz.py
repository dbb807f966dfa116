# pytz: localize, normalize across DST, utc conversion
from datetime import datetime, timedelta

import pytz

paris = pytz.timezone("Europe/Paris")
dt = paris.localize(datetime(2024, 3, 31, 1, 30))
print(dt.isoformat(), paris.normalize(dt + timedelta(hours=1)).isoformat())
print(dt.astimezone(pytz.utc).isoformat(), pytz.timezone("Asia/Kolkata").utcoffset(datetime(2024, 1, 1)))
try:
    pytz.timezone("Mars/Olympus")
except pytz.UnknownTimeZoneError as e:
    print("UnknownTimeZoneError", e)
print(len(pytz.common_timezones) > 400, "Europe/Paris" in pytz.all_timezones_set)
