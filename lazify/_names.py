"""Module names: the relative-import resolver and the package-prefix matcher that
every part of lazify uses (the runtime, the hook, the planner, the commands).

Both live in :mod:`lazify._settings`, which this module re-exports: the settings need
``within`` at every start-up, the rewrite's runtime ``absolute_name``, and there one
module less is loaded; the rest of lazify imports them from here.
"""

from ._settings import absolute_name as absolute_name
from ._settings import within as within
