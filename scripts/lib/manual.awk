# Finishes the page swift-argument-parser's generate-manual writes from the tool's help:
# - the examples each command's help ends with ("EXAMPLES:" and lines indented two spaces) become
#   literal displays, one command a line, with real minus signs (\-) so a copied command runs;
# - the generic ".Ex -std" becomes the tool's own exit statuses;
# - no hyphenation (.nh): an option split across lines cannot be copied.
# Usage: awk -f scripts/lib/manual.awk generated.1 > reverse-audio.1
function flush_examples() {
    if (in_examples) { print ".Ed"; in_examples = 0 }
}
/^\.Os/ { print; print ".nh"; next }
/^EXAMPLES:$/ {
    print ".Pp"
    print "Examples:"
    print ".Bd -literal -offset indent"
    in_examples = 1
    next
}
in_examples && /^  / {
    line = substr($0, 3)
    gsub(/\\/, "\\e", line)
    gsub(/-/, "\\-", line)
    print line
    next
}
in_examples { flush_examples() }
/^\.Ex -std/ {
    print ".Bl -tag -width 6n"
    print ".It 0"
    print "Everything asked for was done (a batch: every file done or skipped)."
    print ".It 1"
    print "A file failed; a batch reports it and goes on with the rest."
    print ".It 64"
    print "The command line is wrong (an unknown option, a value out of range or not among its choices, an output name no format answers to), known before any input is read; nothing is written."
    print ".It 74"
    print "A batch stopped because its output side failed (a full disk, a folder it may not write in)."
    print ".It 128+N"
    print "Stopped by signal N (130: Ctrl-C); nothing partial is left."
    print ".El"
    next
}
{ print }
END { flush_examples() }
