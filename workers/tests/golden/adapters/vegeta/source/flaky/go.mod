module flaky

go 1.22
