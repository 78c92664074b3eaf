# SPDX-License-Identifier: GPL-2.0-only
# Sourced by the live tests: a fake sysfs tree's THP settings under
# $1/sys/kernel/mm/transparent_hugepage (THP madvise, the 16K mTHP size
# off), for MMSIM_LIVE_SYS_ROOT=$1.  Sets $thp to that directory.
fake_thp() {
	thp=$1/sys/kernel/mm/transparent_hugepage
	mkdir -p "$thp/khugepaged" "$thp/hugepages-16kB"
	echo "always [madvise] never" > "$thp/enabled"
	echo "always defer defer+madvise [madvise] never" > "$thp/defrag"
	echo "always inherit madvise [never]" > "$thp/hugepages-16kB/enabled"
}
