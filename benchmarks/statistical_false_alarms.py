import torch, torch.nn.functional as F, time, sys
from kernelgym.judge.statistical import compare_statistics
g=torch.Generator().manual_seed(int(sys.argv[1]) if len(sys.argv)>1 else 7)
N=128*1024
def mk():
    x=torch.randn(N,generator=g)+1; p=torch.rand(N,generator=g)*0.6; u=torch.rand(N,generator=g)*3
    lg=torch.randn(N,generator=g)*.5; nl=torch.randn(N,generator=g)
    return {
     'bern': lambda: torch.bernoulli(p,generator=g),
     'drop': lambda: x*(torch.rand(N,generator=g)>0.3)/0.7,
     'noise': lambda: x+0.3*torch.randn(N,generator=g),
     'dither': lambda: x+0.5*(torch.rand(N,generator=g)-0.5),
     'sround': lambda: torch.floor(u)+(torch.rand(N,generator=g)<(u-torch.floor(u))).float(),
     'gate': lambda: lg+torch.randn(N,generator=g)*F.softplus(nl),
    }
fails={}; t=time.time()
reps=int(sys.argv[2]) if len(sys.argv)>2 else 60
for r in range(reps):
    for name,draw in mk().items():
        for dt in (torch.float32, torch.bfloat16):
            a,b,d,c=[draw().to(dt) for _ in range(4)]
            tol=1e-4 if dt==torch.float32 else 2e-2
            ok,reason,_=compare_statistics(a,c,tol,tol,[b,d])
            if not ok: fails.setdefault((name,str(dt)),[]).append(reason[:120])
print(reps,'reps', time.time()-t,'s'); print(fails)
