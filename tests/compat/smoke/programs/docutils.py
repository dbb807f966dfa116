# docutils: reStructuredText to HTML parts and a doctree
from docutils.core import publish_doctree, publish_parts

rst = """
Title
=====

Some *text* with a list:

- one
- two

.. note:: Be careful.
"""
parts = publish_parts(rst, writer="html", settings_overrides={"report_level": 5})
print(parts["title"])
print(parts["body"])
tree = publish_doctree(rst, settings_overrides={"report_level": 5})
print([n.tagname for n in tree.children])
