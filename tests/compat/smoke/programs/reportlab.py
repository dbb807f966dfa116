# reportlab: a canvas PDF and a platypus document, deterministic (invariant) output
import io

from reportlab.lib.pagesizes import A4
from reportlab.lib.styles import getSampleStyleSheet
from reportlab.lib.units import cm
from reportlab.pdfgen import canvas
from reportlab.platypus import Paragraph, SimpleDocTemplate, Table

buf = io.BytesIO()
c = canvas.Canvas(buf, pagesize=A4, invariant=1)
c.setFont("Helvetica", 14)
c.drawString(2 * cm, 27 * cm, "Hello PDF")
c.rect(2 * cm, 20 * cm, 5 * cm, 3 * cm)
c.showPage()
c.save()
data = buf.getvalue()
print(data[:8], data.count(b"/Type /Page"), len(data) > 500)
styles = getSampleStyleSheet()
buf2 = io.BytesIO()
doc = SimpleDocTemplate(buf2, invariant=1)
doc.build([Paragraph("Title", styles["Title"]), Paragraph("Body <b>bold</b>", styles["Normal"]),
           Table([["a", "b"], ["1", "2"]])])
print(buf2.getvalue()[:5], doc.page, sorted(styles.byName)[:4])
