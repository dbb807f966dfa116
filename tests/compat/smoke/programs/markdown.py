# markdown: convert with extensions (tables, fenced code, toc)
import markdown

text = """# Title

Some *emphasis* and `code`.

| a | b |
|---|---|
| 1 | 2 |

```python
print("hi")
```

[TOC]
"""
md = markdown.Markdown(extensions=["tables", "fenced_code", "toc"])
print(md.convert(text))
print(md.toc_tokens[0]["name"])
print(markdown.markdown("- one\n- two"))
