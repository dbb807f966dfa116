# colorama: colour constants, init/deinit with stripping, cursor codes
import io

import colorama
from colorama import Back, Fore, Style

print(repr(Fore.RED + "red" + Style.RESET_ALL), repr(Back.GREEN), repr(colorama.Cursor.UP(2)))
stream = io.StringIO()
wrapped = colorama.AnsiToWin32(stream, strip=True, convert=False).stream
wrapped.write(Fore.BLUE + "plain text" + Style.RESET_ALL)
print(repr(stream.getvalue()))
colorama.just_fix_windows_console()
print(Fore.__class__.__name__, sorted(vars(Style)))
