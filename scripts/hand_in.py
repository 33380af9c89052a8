"""hand_in.py: how the graders find and read a student's hand-in (scripts/grade.py for kernels,
scripts/grade_host.py for host programs): the file looked for, what is refused, and the text as
the preprocessor reads it."""

import hashlib

BOM = b"\xef\xbb\xbf"
MAX_BYTES = 1 << 20  # a hand-in is a few kilobytes; more is not graded


def find_hand_in(student, file):
    """(path, others) for the student's FILE: my_FILE or FILE, in the folder or one folder down
    (the shallowest wins, my_ first), and the other candidates it shadows; or (None, []). A folder
    that cannot be listed raises OSError."""
    found = []
    for folder in [student] + sorted(p for p in student.iterdir() if p.is_dir()
                                     and not p.is_symlink() and not p.name.startswith(".")):
        for name in (f"my_{file}", file):
            path = folder / name
            if path.is_symlink() or (path.exists() and not path.is_dir()):
                found.append(path)
    if not found:
        return None, []
    return found[0], [str(p.relative_to(student)) for p in found[1:]]


def refuse(path, student):
    """Why the hand-in at `path` cannot be graded as the student's own text, or ""."""
    shown = path.relative_to(student)
    if path.is_symlink():
        return (f"{shown} is a symbolic link: hand in the file itself (a link to another file "
                "is not your text)")
    if not path.is_file():
        return f"{shown} is not a file"
    if student.resolve() not in path.resolve().parents:
        return f"{shown} lies outside your folder: hand in the file itself"
    return ""


def read_hand_in(student, file, row, kind):
    """The text of the student's FILE (a byte-order mark dropped, CRLF read as LF), with the
    gradebook row's "file", "other_files" and "sha256" (of the bytes handed in) filled; or None,
    with the row's "sentence" saying why it cannot be graded. KIND says what the file should be in
    that sentence ("a kernel", "a host program")."""
    try:
        path, others = find_hand_in(student, file)
    except OSError as error:
        row["sentence"] = f"the folder cannot be read ({error.strerror}): hand in readable files"
        return None
    row["other_files"] = " ".join(others)
    if path is None:
        row["sentence"] = (f"no file my_{file} in the submission (nor {file}, nor either one "
                           "folder down)")
        return None
    row["file"] = str(path.relative_to(student))
    why = refuse(path, student)
    if why:
        row["sentence"] = why
        return None
    try:
        size = path.stat().st_size
        if size > MAX_BYTES:
            row["sentence"] = (f"{row['file']} holds {size} bytes: {kind} is a few kilobytes (at "
                               f"most {MAX_BYTES} bytes are graded)")
            return None
        data = path.read_bytes()
    except OSError as error:
        row["sentence"] = (f"{row['file']} cannot be read ({error.strerror}): hand in a readable "
                           "file")
        return None
    row["sha256"] = hashlib.sha256(data).hexdigest()
    if data.startswith(BOM):
        data = data[len(BOM):]
    return data.decode("utf-8", errors="replace").replace("\r\n", "\n")


def logical_lines(text):
    """(first line number, text) of each line as the preprocessor sees it: trigraphs and digraphs
    for '#' read as '#', lines continued with a backslash joined, each comment one space."""
    text = text.replace("??=", "#").replace("??/", "\\").replace("%:", "#")
    lines, current, start, number = [], [], 1, 1
    i, n = 0, len(text)
    while i < n:
        c = text[i]
        if c == "\\" and text.startswith("\n", i + 1):
            i, number = i + 2, number + 1  # a continued line
        elif text.startswith("//", i):
            while i < n and text[i] != "\n":
                if text[i] == "\\" and text.startswith("\n", i + 1):
                    i, number = i + 1, number + 1  # a comment continued onto the next line
                i += 1
            current.append(" ")
        elif text.startswith("/*", i):
            end = text.find("*/", i + 2)
            end = n if end < 0 else end + 2
            number += text.count("\n", i, end)
            current.append(" ")
            i = end
        elif c == "\n":
            lines.append((start, "".join(current)))
            current, number = [], number + 1
            start = number
            i += 1
        else:
            current.append(c)
            i += 1
    lines.append((start, "".join(current)))
    return lines
