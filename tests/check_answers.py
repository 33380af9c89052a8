#!/usr/bin/env python3
"""The instructor key answers every handout question: for each labs/NN_NAME/README.md, the items
under "## Questions to discuss" (one per "- " or "N. " line at the left margin) must be as many
as the items of the key's "## N. NAME" section, counted the same way, and the key must have no
section for a lab that does not exist. Prints one line per handout; exits 1 on
the first count that differs, with both counts and the file to fix.

    check_answers.py --labs labs --key docs/instructor/answers.md
"""
import argparse
import pathlib
import re
import sys


ITEM = r"(- |\d+\. )"  # a list item at the left margin


def sections(text, heading):
    """The lines under each `heading` match, keyed by its group 1, up to the next "## " heading."""
    found, name = {}, None
    for line in text.splitlines():
        if line.startswith("## "):
            match = re.match(heading, line)
            name = match.group(1) if match else None
            if name is not None:
                found[name] = []
        elif name is not None:
            found[name].append(line)
    return found


def items(lines, pattern):
    return sum(1 for line in lines if re.match(pattern, line))


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--labs", required=True, type=pathlib.Path)
    parser.add_argument("--key", required=True, type=pathlib.Path)
    args = parser.parse_args()

    key = sections(args.key.read_text(), r"## (\d+)\. (?:\S+)$")
    handouts = sorted(args.labs.glob("[0-9][0-9]_*/README.md"))
    if not handouts:
        print(f"check_answers: no handouts in {args.labs}", file=sys.stderr)
        return 2
    seen = set()
    for handout in handouts:
        number = str(int(handout.parent.name[:2]))
        seen.add(number)
        questions = sections(handout.read_text(), r"## (Questions to discuss)$")
        asked = items(questions.get("Questions to discuss", []), ITEM)
        if number not in key:
            print(f"check_answers: {args.key} has no section '## {number}. ...' for the "
                  f"{asked} questions of {handout}", file=sys.stderr)
            return 1
        answered = items(key[number], ITEM)
        if asked != answered:
            print(f"check_answers: {handout} asks {asked} questions, and section {number} of "
                  f"{args.key} answers {answered}: one answer per question, in order",
                  file=sys.stderr)
            return 1
        print(f"{handout.parent.name}: {asked} questions, {answered} answers")
    extra = sorted(set(key) - seen, key=int)
    if extra:
        print(f"check_answers: {args.key} answers labs {', '.join(extra)}, which have no handout",
              file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
