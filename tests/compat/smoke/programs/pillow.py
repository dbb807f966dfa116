# pillow: draw an image, save it, open it again, transform it
import io

from PIL import Image, ImageDraw, ImageFilter, ImageOps

im = Image.new("RGB", (64, 48), "white")
draw = ImageDraw.Draw(im)
draw.rectangle([8, 8, 40, 30], fill=(255, 0, 0))
draw.line([0, 47, 63, 0], fill="blue", width=2)
buf = io.BytesIO()
im.save(buf, format="PNG")
buf.seek(0)
back = Image.open(buf)
print(back.format, back.size, back.mode, back.getpixel((20, 20)))
small = back.resize((16, 12)).convert("L")
print(small.size, small.mode, small.getpixel((5, 4)))
print(ImageOps.mirror(back).getpixel((43, 20)), back.filter(ImageFilter.BLUR).size)
jpg = io.BytesIO()
back.save(jpg, format="JPEG", quality=80)
print(Image.open(io.BytesIO(jpg.getvalue())).format, back.getbbox())
for fmt in ("GIF", "BMP", "TIFF", "WEBP", "ICO"):   # uploads arrive as bytes
    data = io.BytesIO()
    back.save(data, format=fmt)
    data.seek(0)
    with Image.open(data) as f:
        print(fmt, f.format, f.size)
for ext in ("gif", "tiff"):   # and files on disk
    back.save(f"out.{ext}")
    with Image.open(f"out.{ext}") as f:
        print(ext, f.format, f.size)
