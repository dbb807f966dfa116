# lxml: build, parse, XPath, namespaces, HTML parsing, XSLT
from lxml import etree, html

root = etree.Element("catalog")
for i, title in enumerate(["Dune", "Emma"]):
    b = etree.SubElement(root, "book", id=str(i))
    etree.SubElement(b, "title").text = title
print(etree.tostring(root, pretty_print=True).decode(), end="")
doc = etree.fromstring(b'<r xmlns:x="urn:x"><x:a n="1"/><x:a n="2"/><b/></r>')
print(doc.xpath("//x:a/@n", namespaces={"x": "urn:x"}), len(doc))
page = html.fromstring("<html><body><p class='c'>Hi <a href='/x'>link</a></p></body></html>")
print(page.xpath("//p[@class='c']")[0].text_content(), [a.get("href") for a in page.iter("a")])
xslt = etree.XSLT(etree.XML(
    '<xsl:stylesheet version="1.0" xmlns:xsl="http://www.w3.org/1999/XSL/Transform">'
    '<xsl:template match="/"><out><xsl:value-of select="count(//book)"/></out></xsl:template>'
    '</xsl:stylesheet>'))
print(str(xslt(root.getroottree())).strip())
try:
    etree.fromstring(b"<a><b></a>")
except etree.XMLSyntaxError as e:
    print("XMLSyntaxError", e.msg.split(",")[0])
