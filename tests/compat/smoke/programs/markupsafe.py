# markupsafe: escaping, Markup arithmetic and formatting
from markupsafe import Markup, escape

print(escape("<script>alert('x')</script>"))
m = Markup("<b>{}</b>").format("<i>")
print(m, m.striptags(), Markup("<p>") + "<&>", escape(Markup("<ok>")))
print(Markup("%s & %s") % ("<a>", Markup("<b>")), Markup("&lt;x&gt;").unescape())
