# matplotlib (Agg backend): a figure with two axes, saved as PNG and SVG to memory
import io

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402

x = np.linspace(0, 2 * np.pi, 50)
fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(6, 3), dpi=50)
ax1.plot(x, np.sin(x), label="sin")
ax1.legend()
ax1.set_title("wave")
ax2.bar(["a", "b", "c"], [3, 1, 2], color="C1")
fig.tight_layout()
buf = io.BytesIO()
fig.savefig(buf, format="png")
print(buf.getvalue()[:8], fig.canvas.get_width_height())
svg = io.BytesIO()
fig.savefig(svg, format="svg")
print(b"<svg" in svg.getvalue(), matplotlib.get_backend())
print([t.get_text() for t in ax2.get_xticklabels()], ax1.get_title())
plt.close(fig)
