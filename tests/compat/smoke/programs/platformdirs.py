# platformdirs: per-user directories for an application (relative to HOME)
import os

import platformdirs

home = os.path.expanduser("~")
d = platformdirs.PlatformDirs("SmokeApp", "SmokeOrg", version="1.0")
for attr in ("user_data_dir", "user_cache_dir", "user_config_dir", "user_log_dir"):
    print(attr, getattr(d, attr).replace(home, "~"))
print(platformdirs.user_cache_path("x").name, type(d).__name__ in ("Unix", "PlatformDirs"))
