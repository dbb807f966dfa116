# python-docx: build a document with headings, a table and styles, save, reopen
import io

from docx import Document
from docx.shared import Pt

doc = Document()
doc.add_heading("Report", level=1)
p = doc.add_paragraph("Plain and ")
p.add_run("bold").bold = True
doc.add_paragraph("first item", style="List Bullet")
table = doc.add_table(rows=2, cols=2)
table.cell(0, 0).text = "k"
table.cell(0, 1).text = "v"
table.cell(1, 0).text = "a"
table.cell(1, 1).text = "1"
doc.styles["Normal"].font.size = Pt(11)
buf = io.BytesIO()
doc.save(buf)
back = Document(io.BytesIO(buf.getvalue()))
print([(para.style.name, para.text) for para in back.paragraphs])
print([[c.text for c in row.cells] for row in back.tables[0].rows], back.styles["Normal"].font.size.pt)
