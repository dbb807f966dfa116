# typer: an app with two commands, run through typer's CliRunner
import typer
from typer.testing import CliRunner

app = typer.Typer(add_completion=False)


@app.command()
def hello(name: str, formal: bool = False):
    typer.echo(f"Good day, {name}." if formal else f"Hi {name}")


@app.command()
def add(a: int, b: int = typer.Option(2, help="second")):
    typer.echo(a + b)


runner = CliRunner()
for args in (["hello", "Ada"], ["hello", "Ada", "--formal"], ["add", "3", "--b", "4"],
             ["add", "x"]):
    r = runner.invoke(app, args)
    print(args, r.exit_code, r.output.strip().splitlines()[-1] if r.output.strip() else "")
