#!/bin/bash
# Make build/tree: a git tree of the packaged kernel with one commit per
# patch of the series (git quiltimport), for editing the series with git.
# scripts/refresh-patches.sh writes the commits back into patches/.
set -eu -o pipefail
. "$(dirname "$0")/lib.sh"
check_settings

tree=${GIT_TREE:-$BUILD/tree}
[ -r "$TARBALL" ] || die "no $TARBALL; install linux-source-$TREE_VERSION"
if [ -d "$tree/.git" ]; then
	die "$tree exists; edit it, run 'make refresh', or remove it to start again"
fi
# Fixed dates make the commit ids a function of the tarball and the
# patches alone, so that base-commit in sent mail is reproducible.
GIT_COMMITTER_DATE="@$(stat -c %Y "$TARBALL") +0000"
GIT_AUTHOR_DATE=$GIT_COMMITTER_DATE
export GIT_COMMITTER_DATE GIT_AUTHOR_DATE
name=${GIT_AUTHOR_NAME:-sched-idle project}
email=${GIT_AUTHOR_EMAIL:-sched-idle@example.invalid}

# The packaged tree's commit is kept in a bare repository of its own,
# made once per tarball and identity (the commit's id depends on both):
# unpacking and committing 80,000 files took 45 s, and a tree is made
# again whenever the series changes (prepare-send-tree.sh) and by the
# tests. A tree is then a clone of it, whose objects are hard links.
packaged=$BUILD/packaged.git
key="$(stat -c '%s %Y' "$TARBALL") $TARBALL $name <$email>"
if [ "$(cat "$packaged/sched-idle-key" 2>/dev/null)" != "$key" ]; then
	rm -rf "$packaged" "$packaged.tmp" "$packaged.src"
	mkdir -p "$packaged.src"
	info "unpacking $TARBALL"
	tar -C "$packaged.src" -xf "$TARBALL" --strip-components=1
	info "committing the packaged tree"
	(
		cd "$packaged.src"
		git init -q
		# Debian's .gitignore ignores the whole top level (/*).
		git add -f -A .
		git -c user.name="$name" -c user.email="$email" commit -q \
			-m "Linux $(make -s kernelversion) as packaged in Debian's linux-source-$TREE_VERSION"
		git tag base
	)
	git clone -q --bare --local "$packaged.src" "$packaged.tmp"
	rm -rf "$packaged.src"
	echo "$key" >"$packaged.tmp/sched-idle-key"
	mv "$packaged.tmp" "$packaged"
fi
rm -rf "$tree.tmp"
info "checking the packaged tree out into $tree"
git clone -q --local "$packaged" "$tree.tmp"
cd "$tree.tmp"
git remote remove origin
git config user.name "$name"
git config user.email "$email"
info "importing the series"
# quiltimport reads the series without our "# stage:" comments.
series_patches | awk '{ print $1 }' >"$BUILD/series.plain"
git quiltimport --patches "$PATCHES" --series "$BUILD/series.plain" >/dev/null
# What a patch carries below its "---" (test details that are not for the
# changelog) was a git note when make refresh wrote it: format-patch
# --notes puts it there under "Notes:", and quiltimport drops it. Back
# into notes, so that the next refresh writes it out again.
paste -d' ' <(git rev-list --reverse base..HEAD) "$BUILD/series.plain" |
	while read -r commit patch; do
		note=$(patch_notes "$PATCHES/$patch")
		[ -z "$note" ] || git notes add -m "$note" "$commit"
	done
cd - >/dev/null
mv "$tree.tmp" "$tree"
info "tree: $tree, $(git -C "$tree" rev-list --count base..HEAD) commits on top of tag 'base'"
