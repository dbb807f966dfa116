# pendulum: datetimes, durations, periods, formatting, diff_for_humans against a reference
import pendulum

dt = pendulum.datetime(2024, 3, 10, 1, 30, tz="Europe/Paris")
print(dt.isoformat(), dt.in_timezone("America/New_York").isoformat())
later = dt.add(months=1, days=2, hours=5)
print(later.to_datetime_string(), later.diff(dt).in_hours(), later.day_of_week)
d = pendulum.duration(days=3, hours=4, minutes=5)
print(d.in_words(locale="en"), d.total_seconds())
interval = pendulum.interval(dt, later)
print(interval.in_days(), len(list(interval.range("weeks"))))
print(dt.diff_for_humans(later), dt.start_of("month").isoformat(), dt.format("dddd Do MMMM"))
print(pendulum.parse("2024-02-29T12:00:00Z").add(years=1).to_date_string())
