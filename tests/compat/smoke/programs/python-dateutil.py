# python-dateutil: parsing, relativedelta, rrule, time zones, easter
from datetime import datetime

from dateutil import easter, parser, relativedelta, rrule, tz

d = parser.parse("Sat Oct 11 17:13:46 UTC 2003")
print(d.isoformat(), parser.isoparse("2024-01-31T10:00:00+02:00").utcoffset())
print(datetime(2024, 1, 31) + relativedelta.relativedelta(months=+1),
      relativedelta.relativedelta(datetime(2024, 5, 1), datetime(2021, 2, 15)))
r = rrule.rrule(rrule.WEEKLY, byweekday=(rrule.MO, rrule.FR), count=4, dtstart=datetime(2024, 1, 1))
print([x.strftime("%a %d") for x in r])
print(datetime(2024, 7, 1, 12, tzinfo=tz.gettz("Europe/Berlin")).utcoffset(), easter.easter(2025))
