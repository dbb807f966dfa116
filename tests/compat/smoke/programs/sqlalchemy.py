# sqlalchemy: declarative ORM on in-memory sqlite, relationships, queries, Core
from sqlalchemy import ForeignKey, String, create_engine, func, select, text
from sqlalchemy.orm import DeclarativeBase, Mapped, Session, mapped_column, relationship


class Base(DeclarativeBase):
    pass


class User(Base):
    __tablename__ = "users"
    id: Mapped[int] = mapped_column(primary_key=True)
    name: Mapped[str] = mapped_column(String(30))
    posts: Mapped[list["Post"]] = relationship(back_populates="author")


class Post(Base):
    __tablename__ = "posts"
    id: Mapped[int] = mapped_column(primary_key=True)
    title: Mapped[str]
    author_id: Mapped[int] = mapped_column(ForeignKey("users.id"))
    author: Mapped[User] = relationship(back_populates="posts")


engine = create_engine("sqlite://")
Base.metadata.create_all(engine)
with Session(engine) as s:
    ada = User(name="ada", posts=[Post(title="notes"), Post(title="engine")])
    s.add_all([ada, User(name="alan")])
    s.commit()
    print(s.scalars(select(User.name).order_by(User.name)).all())
    q = select(User.name, func.count(Post.id)).outerjoin(Post).group_by(User.id).order_by(User.id)
    print(s.execute(q).all())
    print([p.title for p in s.get(User, 1).posts])
with engine.connect() as c:
    print(c.execute(text("select count(*) from posts")).scalar())
print(sorted(Base.metadata.tables))
