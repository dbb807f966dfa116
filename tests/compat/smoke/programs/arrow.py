# arrow: parsing, time zones, shifting, humanizing against a fixed reference, ranges
import arrow

t = arrow.get("2024-03-10T01:30:00+00:00")
print(t.to("US/Pacific").isoformat(), t.shift(days=+3, hours=-2).format("YYYY-MM-DD HH:mm ZZ"))
ref = arrow.get("2024-03-20T01:30:00+00:00")
print(t.humanize(ref), t.humanize(ref, locale="fr"), ref.humanize(t, granularity="day"))
print([d.format("MM-DD") for d in arrow.Arrow.range("day", t, t.shift(days=3))])
print(arrow.get("10 March 2024", "D MMMM YYYY").date(), t.floor("month").isoformat())
print(t.span("week")[0].isoformat(), t.weekday(), t.is_between(t.shift(days=-1), ref))
