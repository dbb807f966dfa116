# rich: a table, markup, a tree and a panel rendered to text
from rich.console import Console
from rich.panel import Panel
from rich.table import Table
from rich.tree import Tree

console = Console(record=True, width=60, color_system=None, force_terminal=False)
t = Table(title="Planets")
t.add_column("Name")
t.add_column("Moons", justify="right")
for name, moons in [("Earth", 1), ("Mars", 2), ("Jupiter", 95)]:
    t.add_row(name, str(moons))
console.print(t)
console.print("[bold red]alert[/] and [green]ok[/]")
tree = Tree("root")
tree.add("a").add("a1")
tree.add("b")
console.print(tree)
console.print(Panel("inside", title="box", width=20))
text = console.export_text()
print(len(text.splitlines()))
