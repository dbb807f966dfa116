"""Names the command-line modules import from here while they are restructured (issue
28, branch scli): a thin re-export only, drop it once they import from the modules
that own these names.  Nothing in the library imports it.
"""

from ._mechanism import check_mechanism as check_mechanism
from ._mechanism import default_mechanism as default_mechanism
from ._settings import DEFAULT_EXCLUDING as DEFAULT_EXCLUDING
from ._settings import env_flag as env_flag
