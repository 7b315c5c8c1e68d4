package cli

import "testing"

func TestSoftMemoryLimitIsThreeQuartersOfTheLeastMemory(t *testing.T) {
	meminfo := "MemFree:         1000 kB\nMemTotal:       24683620 kB\nSwapTotal: 0 kB\n"
	for _, c := range []struct {
		name    string
		meminfo string
		cgroups []string
		want    int64
	}{
		{"machine only", meminfo, nil, 24683620 * 1024 / 4 * 3},
		{"no cgroup limit", meminfo, []string{"max\n", "9223372036854771712\n"}, 24683620 * 1024 / 4 * 3},
		{"cgroup v2 limit", meminfo, []string{"8589934592\n", ""}, 8589934592 / 4 * 3},
		{"cgroup v1 limit", meminfo, []string{"", "4294967296\n"}, 4294967296 / 4 * 3},
		{"nothing known", "", []string{"", "garbage"}, 0},
	} {
		if got := softMemoryLimit(c.meminfo, c.cgroups...); got != c.want {
			t.Errorf("%s: %d, want %d", c.name, got, c.want)
		}
	}
}
