# psutil: this process, memory and CPU facts, disk usage (shapes, not values)
import os

import psutil

p = psutil.Process(os.getpid())
print(p.pid == os.getpid(), p.name().startswith("python"), p.status(), p.num_threads() >= 1)
print(p.memory_info()._fields[:2], p.memory_info().rss > 0, psutil.cpu_count() >= 1)
vm = psutil.virtual_memory()
print(vm.total > 0, 0 <= vm.percent <= 100, psutil.disk_usage("/").total > 0)
print(psutil.pid_exists(os.getpid()), type(psutil.boot_time()).__name__, psutil.LINUX)
try:
    psutil.Process(2 ** 22 + 12345)
except psutil.NoSuchProcess as e:
    print("NoSuchProcess")
