module latlab.example/gobench

go 1.22
