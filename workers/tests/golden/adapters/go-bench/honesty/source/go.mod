module latlab.example/honesty

go 1.22
