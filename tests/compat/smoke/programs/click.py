# click: a command group with options, run through CliRunner
import click
from click.testing import CliRunner


@click.group()
@click.option("--verbose", is_flag=True)
@click.pass_context
def cli(ctx, verbose):
    ctx.obj = {"verbose": verbose}


@cli.command()
@click.argument("name")
@click.option("--count", default=1, type=click.IntRange(1, 5))
@click.pass_obj
def greet(obj, name, count):
    for _ in range(count):
        click.echo(f"Hello {name}{'!' if obj['verbose'] else ''}")


runner = CliRunner()
r = runner.invoke(cli, ["--verbose", "greet", "Ada", "--count", "2"])
print(r.exit_code, r.output, end="")
r = runner.invoke(cli, ["greet", "Ada", "--count", "9"])
print(r.exit_code, r.output.splitlines()[-1])
print(runner.invoke(cli, ["--help"]).output)
