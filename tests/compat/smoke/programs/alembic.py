# alembic: migration operations and autogenerate comparison on in-memory sqlite
from alembic.autogenerate import compare_metadata
from alembic.migration import MigrationContext
from alembic.operations import Operations
from sqlalchemy import Column, Integer, MetaData, String, Table, create_engine, inspect

engine = create_engine("sqlite://")
with engine.begin() as conn:
    ctx = MigrationContext.configure(conn)
    op = Operations(ctx)
    op.create_table("account", Column("id", Integer, primary_key=True),
                    Column("name", String(50), nullable=False))
    op.add_column("account", Column("email", String(100)))
    op.create_index("ix_account_name", "account", ["name"])
    print(sorted(c["name"] for c in inspect(conn).get_columns("account")))
    target = MetaData()
    Table("account", target, Column("id", Integer, primary_key=True),
          Column("name", String(50), nullable=False), Column("email", String(100)),
          Column("active", Integer))
    diffs = compare_metadata(MigrationContext.configure(conn), target)
    print([d[0] if isinstance(d, tuple) else d[0][0] for d in diffs])
    print(ctx.get_current_revision())

# the command-line workflow: init, a revision, upgrade, history
from alembic import command  # noqa: E402
from alembic.config import Config  # noqa: E402

cfg = Config("alembic.ini")
command.init(cfg, "migrations")
cfg = Config("alembic.ini")
cfg.set_main_option("sqlalchemy.url", "sqlite:///smoke.db")
command.revision(cfg, "create things", rev_id="0001")
command.upgrade(cfg, "head")
with create_engine("sqlite:///smoke.db").connect() as conn:
    print(MigrationContext.configure(conn).get_current_revision())
