# packaging: versions, specifiers, requirements, markers, tags, names
from packaging.markers import Marker
from packaging.requirements import Requirement
from packaging.specifiers import SpecifierSet
from packaging.utils import canonicalize_name
from packaging.version import InvalidVersion, Version

vs = sorted(Version(v) for v in ["1.0", "1.0rc1", "1.0.post1", "0.9", "1.0.dev0", "2!0.1"])
print([str(v) for v in vs])
spec = SpecifierSet(">=1.0,<2,!=1.3.*")
print([v for v in ["0.9", "1.0", "1.3.1", "1.4", "2.0"] if v in spec], spec.contains("1.5a1"))
r = Requirement('requests[socks]>=2.8; python_version >= "3.8"')
print(r.name, sorted(r.extras), str(r.specifier), r.marker.evaluate({"python_version": "3.9"}))
print(Marker('os_name == "nt" and extra == "x"').evaluate({"os_name": "nt", "extra": "x"}))
print(canonicalize_name("Foo.Bar_baz"))
try:
    Version("not a version")
except InvalidVersion as e:
    print("InvalidVersion", e)
