# beautifulsoup4: parse HTML with the stdlib parser and lxml, find, select, modify
from bs4 import BeautifulSoup

doc = """<html><head><title>T</title></head><body>
<div id="main"><p class="x">one <b>bold</b></p><p class="x y">two</p>
<a href="/a">A</a><a href="/b">B</a></div></body></html>"""
soup = BeautifulSoup(doc, "html.parser")
print(soup.title.string, [p.get_text() for p in soup.find_all("p", class_="x")])
print([a["href"] for a in soup.select("#main a")], soup.select_one("p.y").text)
soup.b.string = "strong"
new = soup.new_tag("i")
new.string = "added"
soup.find(id="main").append(new)
print(soup.find(id="main").p, soup.find("i"))
print(BeautifulSoup(doc, "lxml").find_all("a")[1].string)
print(BeautifulSoup("<root><item k='1'/><item k='2'/></root>", "xml").find_all("item")[1]["k"])
