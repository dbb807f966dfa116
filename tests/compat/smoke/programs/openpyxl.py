# openpyxl: write a workbook with formulas and styles, save it, load it back
from openpyxl import Workbook, load_workbook
from openpyxl.styles import Font
from openpyxl.utils import get_column_letter

wb = Workbook()
ws = wb.active
ws.title = "data"
ws.append(["item", "qty", "price"])
for row in [("apple", 3, 0.5), ("pear", 2, 0.75)]:
    ws.append(row)
ws["D1"] = "total"
ws["D2"] = "=B2*C2"
ws["A1"].font = Font(bold=True)
wb.create_sheet("other")["A1"] = 42
wb.save("book.xlsx")
wb2 = load_workbook("book.xlsx")
ws2 = wb2["data"]
print(wb2.sheetnames, ws2.max_row, ws2.max_column, ws2["D2"].value, ws2["A1"].font.b)
print([[c.value for c in r] for r in ws2.iter_rows(min_row=2, max_col=3)])
print(get_column_letter(28), wb2["other"]["A1"].value)
