#!/usr/bin/env bash
# kepsite as a Prow presubmit step for kubernetes/enhancements: the findings
# of the KEPs the pull request touches, as JUnit XML in $ARTIFACTS (Spyglass
# shows each KEP as a test case) and as text in the build log.
#
# Prow checks out the pull request merged into its base branch, with
# PULL_BASE_SHA set to the base commit; that commit is the comparison point.
set -euo pipefail

base="${PULL_BASE_SHA:?PULL_BASE_SHA is not set (run as a Prow presubmit)}"
artifacts="${ARTIFACTS:-_artifacts}"
mkdir -p "$artifacts"

# A shallow clone may lack the base: fetch it (kepsite says so if it is missing).
git cat-file -e "${base}^{commit}" 2>/dev/null || git fetch --depth=50 origin "$base"

status=0
kepsite check --repo . --changed-since "$base" --format junit \
  > "$artifacts/junit_kepsite.xml" || status=$?
kepsite check --repo . --changed-since "$base" --color never || true
exit "$status"
