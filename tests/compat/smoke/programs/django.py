# django: settings configured in the program, templates, forms, the ORM on in-memory sqlite
import django
from django.conf import settings

settings.configure(
    DEBUG=False,
    SECRET_KEY="smoke",
    INSTALLED_APPS=["django.contrib.contenttypes", "django.contrib.auth"],
    DATABASES={"default": {"ENGINE": "django.db.backends.sqlite3", "NAME": ":memory:"}},
    TEMPLATES=[{"BACKEND": "django.template.backends.django.DjangoTemplates"}],
    USE_TZ=True,
)
django.setup()

from django import forms  # noqa: E402
from django.contrib.auth.models import User  # noqa: E402
from django.core.management import call_command  # noqa: E402
from django.template import Context, Template  # noqa: E402
from django.utils.text import slugify  # noqa: E402

print(Template("{% for x in xs %}{{ x|upper }}{% if not forloop.last %},{% endif %}{% endfor %}")
      .render(Context({"xs": ["a", "b"]})))


class SignupForm(forms.Form):
    name = forms.CharField(max_length=5)
    age = forms.IntegerField(min_value=0)


f = SignupForm({"name": "toolong", "age": "-1"})
print(f.is_valid(), sorted(f.errors))
call_command("migrate", verbosity=0)
User.objects.create_user("alice", "a@example.test", "pw")
User.objects.create_user("bob", "b@example.test", "pw")
print(list(User.objects.filter(username__startswith="a").values_list("username", flat=True)))
print(User.objects.count(), slugify("Hello World, Django!"))
