# filelock: acquire, re-enter, timeout against a second lock object
from filelock import FileLock, Timeout

lock = FileLock("data.lock")
with lock:
    print(lock.is_locked)
    with lock:
        print(lock.lock_counter)
    other = FileLock("data.lock", timeout=0.01)
    try:
        other.acquire()
    except Timeout as e:
        print("Timeout", type(e).__name__)
print(lock.is_locked)
