"""The temporary-disk watcher: what a running command's process tree has allocated in its watched
folders, including files it already unlinked but still holds open (seen through /proc)."""

import os


def descendants(pid):
    """pid and every process below it (via /proc/PID/task/TID/children)."""
    found, queue = [], [pid]
    while queue:
        current = queue.pop()
        found.append(current)
        try:
            for task in os.listdir(f"/proc/{current}/task"):
                with open(f"/proc/{current}/task/{task}/children") as handle:
                    queue.extend(int(child) for child in handle.read().split())
        except OSError:
            pass
    return found


def disk_bytes(folders, pid, temp_folder=None):
    """Allocated bytes (st_blocks x 512) of every file in `folders`, plus files the process tree
    holds open there that are already unlinked (SoX unlinks its temporary files at once, ours its
    reversed PCM when it writes an encoded format). Returns (that total, the bytes of temporary
    files alone: those in `temp_folder` plus the unlinked ones)."""
    files, temporary = {}, set()
    for folder in folders:
        for base, _, names in os.walk(folder):
            for name in names:
                try:
                    status = os.lstat(os.path.join(base, name))
                except OSError:
                    continue
                files[(status.st_dev, status.st_ino)] = status.st_blocks * 512
                if folder == temp_folder:
                    temporary.add((status.st_dev, status.st_ino))
    prefixes = tuple(str(folder) + "/" for folder in folders)
    for process in descendants(pid):
        try:
            descriptors = os.listdir(f"/proc/{process}/fd")
        except OSError:
            continue
        for descriptor in descriptors:
            link = f"/proc/{process}/fd/{descriptor}"
            try:
                if not os.readlink(link).startswith(prefixes):
                    continue
                status = os.stat(link)
            except OSError:
                continue
            files[(status.st_dev, status.st_ino)] = status.st_blocks * 512
            if status.st_nlink == 0:
                temporary.add((status.st_dev, status.st_ino))
    return sum(files.values()), sum(files[key] for key in temporary)
