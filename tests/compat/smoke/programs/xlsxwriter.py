# xlsxwriter: a workbook with formats, formulas and a chart, written to memory
import io
import zipfile

import xlsxwriter

buf = io.BytesIO()
wb = xlsxwriter.Workbook(buf, {"in_memory": True})
ws = wb.add_worksheet("sales")
bold = wb.add_format({"bold": True, "num_format": "0.00"})
ws.write_row(0, 0, ["month", "amount"], bold)
for i, (m, a) in enumerate([("jan", 10), ("feb", 12.5), ("mar", 9)], start=1):
    ws.write(i, 0, m)
    ws.write_number(i, 1, a)
ws.write_formula("B5", "=SUM(B2:B4)")
chart = wb.add_chart({"type": "column"})
chart.add_series({"values": "=sales!$B$2:$B$4", "categories": "=sales!$A$2:$A$4"})
ws.insert_chart("D2", chart)
wb.close()
names = zipfile.ZipFile(io.BytesIO(buf.getvalue())).namelist()
print(sorted(n for n in names if n.startswith("xl/")))
